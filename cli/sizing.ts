// The checks build, dedup and intersect make of a --p before any file is
// opened, when the lines it is for are not counted yet.
import { optimal } from "bloomkit";
import { sizedByOptions } from "./args.js";

/**
 * The most keys the calculator sizes a filter for at rate p: its m stays
 * below 2^53 − 1 bits, with 1% to spare for rounding.
 */
const mostKeysFor = (p: number) => Math.floor((0.99 * Number.MAX_SAFE_INTEGER * Math.LN2 * Math.LN2) / -Math.log(p));

/**
 * Refuses, as wrong usage in the options' words, a --p that no standard
 * filter reaches with the most hashes it takes: for `n` lines, or, with n not
 * known yet (or past what the calculator sizes), for the most it sizes. The
 * smallest p possible falls as n grows, by less than 3% from one line to
 * billions (6.26e-78 to 6.11e-78), so no input that could be held is refused
 * here; lines counted later are checked again.
 */
export function refuseUnreachableRate(p: number, n: number | undefined, phrases: { p?: string; n?: string }): void {
  const most = mostKeysFor(p);
  sizedByOptions(() => optimal({ n: Math.min(n ?? most, most), p }), { p: phrases.p, n: n === undefined ? "any number of lines" : phrases.n });
}

/** The hashes rate p asks for when the lines are not known: as for the most the calculator sizes (about −log2 p). */
export function hashesForRate(p: number): number {
  return optimal({ n: mostKeysFor(p), p }).k;
}

/**
 * Whether a filter answering at `rate` is well above the p it was made for,
 * too full for its keys rather than at its rate: above twice p, and from
 * p = 1/3 on above halfway from p to 1 (twice 0.5 is 100%, which no rate
 * passes: a full filter at --p 0.5 was taken for one at its rate).
 */
export function wellAbove(rate: number, p: number): boolean {
  return rate > Math.min(2 * p, (1 + p) / 2);
}
