"""The hand-off's comparison (`compare.difference`) on hand-made answers: a right
answer passes and every kind of wrong one fails, so that a check that printed "same
answer" could not have passed anything. No engine needed. Run:
python3 -m unittest discover -s tools/handoff (`cargo x handoff` and CI do)."""

import datetime
import unittest
from decimal import Decimal

from compare import difference, key_text, same_bits

# The parallel step's --json for two groups, parsed: the sum is the exact decimal
# sum rounded to an f64, and a group with no value has a null sum.
EXPECTED = {
    "books": {"count": 3, "sum": 1000000.000001},
    "NA group": {"count": 1, "sum": None},
}
RIGHT = {"books": (3, Decimal("1000000.000001")), "NA group": (1, None)}


class Difference(unittest.TestCase):
    def test_the_right_answer_passes(self):
        self.assertIsNone(difference(RIGHT, EXPECTED))
        self.assertEqual(same_bits(RIGHT, EXPECTED), 2)

    def test_a_float_sum_added_in_another_order_passes(self):
        # 1e-12 relative: what another order of f64 additions gives
        answer = {"books": (3, 1000000.000001 * (1 + 1e-12)), "NA group": (1, None)}
        self.assertIsNone(difference(answer, EXPECTED))
        self.assertEqual(same_bits(answer, EXPECTED), 1)

    def test_a_deliberately_wrong_expected_sum_fails(self):
        # The step's answer altered by one part in a million: the engine's right
        # answer must now be reported as different.
        wrong = {**EXPECTED, "books": {"count": 3, "sum": 1000001.000001}}
        self.assertIn("relative error", difference(RIGHT, wrong))

    def test_a_deliberately_wrong_expected_count_fails(self):
        wrong = {**EXPECTED, "books": {"count": 4, "sum": 1000000.000001}}
        self.assertIn("count 3, expected 4", difference(RIGHT, wrong))

    def test_a_sum_off_by_more_than_the_tolerance_fails(self):
        answer = {"books": (3, Decimal("1000000.000001") * Decimal("1.000000002")), "NA group": (1, None)}
        self.assertIn("relative error", difference(answer, EXPECTED))

    def test_a_null_sum_is_not_zero(self):
        self.assertIn("'NA group'", difference({"books": RIGHT["books"], "NA group": (1, 0)}, EXPECTED))
        self.assertIn("'NA group'", difference({"books": RIGHT["books"], "NA group": (1, Decimal(0))}, EXPECTED))

    def test_a_missing_group_fails(self):
        self.assertIn("missing ['NA group']", difference({"books": RIGHT["books"]}, EXPECTED))

    def test_a_null_key_is_not_the_empty_key(self):
        # The steps print a NULL key as "": an engine's NULL key is another group.
        expected = {"": {"count": 1, "sum": 2.0}}
        self.assertIsNone(difference({"": (1, 2)}, expected))
        self.assertIn("unexpected [None]", difference({None: (1, 2)}, expected))

    def test_a_sum_past_f64(self):
        self.assertIsNone(difference({"a": (1, float("inf"))}, {"a": {"count": 1, "sum": "inf"}}))
        self.assertIsNotNone(difference({"a": (1, 1e308)}, {"a": {"count": 1, "sum": "inf"}}))


class KeyText(unittest.TestCase):
    def test_keys_print_as_the_steps_print_them(self):
        self.assertEqual(key_text("a\\b"), "a\\\\b")
        self.assertEqual(key_text(b"a\xffb"), "a\\xffb")
        self.assertEqual(key_text("line\nbreak, \"quoted\""), "line\nbreak, \"quoted\"")
        self.assertEqual(key_text(True), "true")
        self.assertEqual(key_text(-12), "-12")
        self.assertEqual(key_text(datetime.date(2024, 2, 1)), "2024-02-01")
        self.assertIsNone(key_text(None))

    def test_the_byte_ff_and_the_text_backslash_xff_stay_two_keys(self):
        self.assertEqual(key_text(b"\xff"), "\\xff")
        self.assertEqual(key_text("\\xff"), "\\\\xff")

    def test_two_groups_that_print_alike_fail(self):
        self.assertIn("two groups", difference({True: (1, 1), "true": (1, 1)}, {"true": {"count": 2, "sum": 2.0}}))

if __name__ == "__main__":
    unittest.main()
