//! `Step::pass` on real files: the mapped pass agrees with the parse of the same bytes,
//! an empty file is zero records, and a missing file is an I/O error, not a panic
//! (`testkit::files`).

testkit::mapped_file_tests!(step4::Step4, step4::map);
