"""Count the words and lines in a text file."""

import sys


def count_words(text):
    return len(text.split())


def count_lines(text):
    return len([line for line in text.splitlines() if line.strip()])


def main(argv):
    if len(argv) != 2:
        print("usage: tally.py FILE")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    print(f"{count_words(text)} words, {count_lines(text)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
