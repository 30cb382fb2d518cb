#![no_main]
fuzz::query_target!(step7);
