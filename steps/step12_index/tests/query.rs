//! Step 12's answer, the table's way (load into a temporary table, then the query over
//! it): `gen`'s reference with every sum exact, correctly rounded, and other columns
//! grouped and summed, as every query step (`testkit::query_checks`).

testkit::query_tests!(step12::Step12, testkit::query_checks::Sums::Exact);
