//! Running a step: what its binary does around its idea. One command line for
//! every step ([`cli`]), timing and MB/s ([`measure`]), the counting allocator
//! ([`alloc`]), the sniffer that names a file that is not CSV text ([`sniff`]), and the stamp
//! that spares a build the gate it passed already ([`stamp`]).

pub mod alloc;
pub mod cli;
pub mod measure;
pub mod sniff;
pub mod stamp;
