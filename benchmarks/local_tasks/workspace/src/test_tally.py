import unittest

from tally import count_lines, count_words


class TallyTest(unittest.TestCase):
    def test_words(self):
        self.assertEqual(count_words("one two  three"), 3)

    def test_lines_skip_empty(self):
        self.assertEqual(count_lines("a\n\nb\n"), 2)


if __name__ == "__main__":
    unittest.main()
