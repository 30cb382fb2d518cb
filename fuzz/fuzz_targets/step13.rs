#![no_main]
fuzz::parse_target!(step13::Step13, step13::Tiled<1, 1>, step13::Tiled<3, 5>);
