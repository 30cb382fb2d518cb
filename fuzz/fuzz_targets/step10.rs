#![no_main]
fuzz::parse_target!(step10::Step10, step10::Tiled<1, 1>, step10::Tiled<3, 5>);
