#![no_main]
fuzz::parse_target!(step3::Step3);
