#![no_main]
fuzz::parse_target!(step1::Step1);
