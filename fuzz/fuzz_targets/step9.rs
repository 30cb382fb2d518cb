#![no_main]
fuzz::parse_target!(step9::Step9, step9::Tiled<1, 1>, step9::Tiled<3, 5>);
