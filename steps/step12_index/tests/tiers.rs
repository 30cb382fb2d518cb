//! Every SIMD tier the CPU has, against the reference parser and against each other
//! (`testkit::tiers`): the gate on each tier, identical bitmaps, and every
//! special byte at every position around the 64-byte boundaries.

testkit::simd_tier_tests!(step12, Step12);
