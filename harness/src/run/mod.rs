//! Running a step: what its binary does around its idea. One command line for
//! every step ([`cli`]), timing and MB/s ([`measure`]), the counting allocator
//! ([`alloc`]), the sniffer that names a file that is not CSV text ([`sniff`]), the stamp
//! that spares a build the gate it passed already ([`stamp`]), a file that changes
//! while it is read ([`changed`]), the SIGBUS of one that shrinks while it is mapped
//! ([`sigbus`]), and how every error is reported, with `--json` as JSON too
//! ([`report`]).

pub mod alloc;
pub mod changed;
pub mod cli;
pub mod measure;
pub mod report;
pub mod sigbus;
pub mod sniff;
pub mod stamp;
