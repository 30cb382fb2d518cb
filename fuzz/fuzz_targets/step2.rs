#![no_main]
fuzz::parse_target!(step2::Step2);
