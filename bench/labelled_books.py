"""Text and grouping helpers shared by the labelled fixtures (bench/match, bench/dedupe).

Ground truth only: how the fixtures tell one book from another, never what the code under test does.
"""
import unicodedata


def fold(text):
    """`Brontë` → `Bronte`: diacritics removed."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def strip_series(title):
    """The title without its trailing `(…)`/`[…]` groups (series suffix, edition notes)."""
    title = title.strip()
    while title.endswith(")") or title.endswith("]"):
        opener = "(" if title.endswith(")") else "["
        start = title.rfind(opener)
        if start <= 0:
            break
        title = title[:start].strip()
    return title


def split_subtitle(title):
    """(main, subtitle or None), split at the first `:`."""
    if ":" in title:
        main, sub = title.split(":", 1)
        if main.strip() and sub.strip():
            return main.strip(), sub.strip()
    return title, None


def isbn13(n):
    """A valid 979 ISBN-13 for the number n (no real book's: 979-0 is for music)."""
    body = "979" + str(n).zfill(9)
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - total % 10) % 10)


class UnionFind:
    """Groups of indexes; a group is named by its smallest member."""

    def __init__(self):
        self.parent = {}

    def find(self, x):
        parent = self.parent
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)


class FreshISBNs:
    """ISBNs no book of the fixtures has: isbn13(start + 1), isbn13(start + 2)… skipping `used`."""

    def __init__(self, start, used):
        self.next_number, self.used = start, used

    def __call__(self):
        while True:
            self.next_number += 1
            candidate = isbn13(self.next_number)
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate
