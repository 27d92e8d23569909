// The classic uses of a Bloom filter, as starting points: each sets the
// filter's type and size, adds a sample of keys, and leaves a key to try.

/** `count` keys made from an index: `make(i)` for i = 1 … count. */
const keys = (count, make) => Array.from({ length: count }, (_, i) => make(i + 1));

export const presets = [
  {
    id: "small",
    title: "A small filter to watch (100 keys, 1%)",
    type: "standard",
    n: 100,
    p: 0.01,
    sample: () => [],
    key: "https://example.com/",
    story: "Small enough to see every bit: add a few keys and watch their positions fill the array; add a few hundred and watch false positives appear.",
  },
  {
    id: "crawler",
    title: "Crawler de-duplication (1,000,000 URLs, 0.1%)",
    type: "standard",
    n: 1_000_000,
    p: 0.001,
    sample: () => keys(5000, (i) => `https://news.example.com/article/${i}`),
    key: "https://news.example.com/article/17",
    story:
      "A web crawler must not fetch the same page twice. It keeps every URL it has fetched in a filter: “definitely not present” means fetch it, " +
      "“probably present” means skip it. At p = 0.1% one new page in a thousand is skipped by mistake, the price of 1.8 MB of bits instead of the URLs themselves. " +
      "5,000 URLs are added; try one of them, then an article number above 5,000.",
  },
  {
    id: "cache",
    title: "Cache-penetration guard (100,000 ids, 1%)",
    type: "standard",
    n: 100_000,
    p: 0.01,
    sample: () => keys(20_000, (i) => `user:${i}`),
    key: "user:999999",
    story:
      "Requests for ids that exist nowhere miss the cache every time and fall through to the database (cache penetration; an attacker can send millions). " +
      "A filter of every id that exists, checked before the cache, turns them away: “definitely not present” needs no lookup at all. " +
      "A false positive costs one wasted lookup, so 1% is plenty. Ids user:1 … user:20000 are added; user:999999 is not.",
  },
  {
    id: "spam",
    title: "Spam blocklist that forgets (10,000 senders, 0.1%, counting)",
    type: "counting",
    n: 10_000,
    p: 0.001,
    sample: () => keys(1000, (i) => `spammer${i}@spam.example`),
    key: "spammer3@spam.example",
    story:
      "A mail server checks each sender against a blocklist. Senders come off the list when they clean up, so the filter must forget: " +
      "a counting filter keeps a small counter per position instead of a bit, and Remove counts down. " +
      "A “probably present” sender gets the full check against the real list; everyone else is let through at once. Try Remove on spammer3@spam.example.",
  },
  {
    id: "cuckoo",
    title: "The same blocklist as a cuckoo filter (10,000 senders, 0.1%)",
    type: "cuckoo",
    n: 10_000,
    p: 0.001,
    sample: () => keys(1000, (i) => `spammer${i}@spam.example`),
    key: "spammer3@spam.example",
    story:
      "A cuckoo filter stores a short fingerprint of each key in one of two buckets of four slots; removing a key deletes its fingerprint. " +
      "It answers faster than a counting filter and uses less memory at low rates.",
  },
];

/** What the preset list shows once a filter is made from the controls rather than from a preset. */
export const OWN_SETTINGS = {
  id: "own",
  title: "Your own settings",
  story: "A filter made from the settings below, empty when made: add keys, then query some you added and some you did not.",
};
