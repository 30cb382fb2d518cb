//! The gate's corpus at other geometries: the device's (32-byte slices, 1024 a tile),
//! one byte a slice and a tile, and odd sizes, so CR LF, `""` and quotes fall on every
//! kind of edge.

mod device_geometry {
    testkit::gate_tests!(step13::Tiled<32, 1024>);
}
mod one_byte_tiles {
    testkit::gate_tests!(step13::Tiled<1, 1>);
}
mod three_byte_slices_five_a_tile {
    testkit::gate_tests!(step13::Tiled<3, 5>);
}
