#![no_main]
fuzz::parse_target!(step11::Step11, step11::Tiled<1, 1>, step11::Tiled<3, 5>);
