//! What a learner sees when the mapped file shrinks during the pass: the process dies
//! of SIGBUS at once, with no panic and no `Err` ("Bus error", exit status 135 in a
//! shell). See the `SAFETY` comment in `step3::map`, and `testkit::sigbus` for how
//! the test survives the crash (it runs itself as a child).
#![cfg(any(target_os = "linux", target_os = "macos"))]

testkit::sigbus_test!(step3::map, step3::Step3);
