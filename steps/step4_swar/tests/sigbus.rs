//! What a learner sees when the mapped file shrinks during the pass: the process dies
//! of SIGBUS at once, with no panic and no `Err` ("Bus error", exit status 135 in a
//! shell). See the `SAFETY` comment in `step4::map`, and `testkit::sigbus` for how
//! the test survives the crash (it runs itself as a child).
#![cfg(any(target_os = "linux", target_os = "macos"))]

testkit::sigbus_test!(step4::map, step4::Step4);
