"""The check that decides whether a peer's row is timed or failed (`difference`), on
hand-made answers: no peer library needed. Run: python3 -m unittest discover tools/peers
(CI does, in `cargo x ci`)."""

import unittest

from peers import difference

REFERENCE = {"groups": {
    "a": {"count": 2, "sum_exact": "1000000.000001"},
    "b": {"count": 1, "sum_exact": None},
}}


class Difference(unittest.TestCase):
    def test_the_reference_itself_passes(self):
        self.assertIsNone(difference({"a": (2, 1000000.000001), "b": (1, None)}, REFERENCE))

    def test_a_sum_in_another_order_passes(self):
        # 1e-12 relative: what another order of f64 additions gives
        self.assertIsNone(difference({"a": (2, 1000000.000001 * (1 + 1e-12)), "b": (1, None)}, REFERENCE))

    def test_a_lost_row_fails(self):
        self.assertIn("count 1", difference({"a": (1, 1000000.000001), "b": (1, None)}, REFERENCE))

    def test_a_sum_off_by_a_millionth_fails(self):
        self.assertIn("relative error", difference({"a": (2, 1000001.0), "b": (1, None)}, REFERENCE))

    def test_a_null_sum_is_not_zero(self):
        self.assertIn("group 'b'", difference({"a": (2, 1000000.000001), "b": (1, 0.0)}, REFERENCE))

    def test_a_missing_group_fails(self):
        self.assertIn("missing ['b']", difference({"a": (2, 1000000.000001)}, REFERENCE))

    def test_a_sum_that_should_be_zero_fails_with_a_message(self):
        # A relative error against an exact 0 has no ratio to give.
        zero = {"groups": {"a": {"count": 2, "sum_exact": "0"}}}
        self.assertIsNone(difference({"a": (2, 0.0)}, zero))
        self.assertIn("group 'a': sum 0.5", difference({"a": (2, 0.5)}, zero))


if __name__ == "__main__":
    unittest.main()
