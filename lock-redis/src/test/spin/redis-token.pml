/*
 * Model (a): fencing tokens of ONE resource on a single Redis server (standalone, or the master
 * of a Sentinel/Cluster shard), across restarts from older data and failovers to lagging replicas.
 * Checked by TokenSchemeModelsTest (lock-redis/src/test/java/dev/fencing/redis); run by hand with
 *
 *   spin -a [-DVARIANT] redis-token.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * ---------------------------------------------------------------------------------------------
 * THE SCHEME: every grant, inside the acquire script, takes
 *
 *     token = max(counter + 1, server TIME in microseconds)
 *
 * and stores it as the counter. `counter == 0` stands for "the key is missing".
 *
 * THE PROPERTY: no token is issued twice, and each grant's token is greater than every token
 * issued before it for the resource. Checked as an assertion against the ghost variable `last`
 * (the largest token ever issued, handed out or not): every grant asserts token > last. One
 * resource suffices: resources share nothing but the clock, which grants only read.
 *
 * EVENTS, in any order (one process, nondeterministic choice):
 *   grant      - the acquire script runs. Whether the client ever sees the reply does not matter:
 *                an executed script counts as issued (this also covers unclear replies).
 *                The lock key itself is not modelled; leaving it out only allows more grants.
 *   tick       - the server clock advances by 1 µs.
 *   lose       - the counter goes back to ANY value in 0..last: restart from an older RDB
 *                snapshot or AOF (appendfsync everysec), failover to a replica that missed the
 *                last writes, restart without persistence or idle expiry (back to 0 = missing).
 *                This is a superset of the values the counter really held.
 *
 * ASSUMPTIONS (what the safe run relies on; the variants below drop them one at a time):
 *   A1 clock: the clock of the server that answers after a `lose` is ahead of the clock of the
 *      server that answered before, at the moment of the loss, by at least GAIN_MIN µs — i.e. the
 *      new clock is not behind the old one by more than the restart/failover took. Between
 *      losses the clock never goes backwards (ticks only).
 *   A2 rate: fewer than one grant per µs is sustained: a grant happens only if its token is at
 *      most BURST µs ahead of the clock (counter + 1 <= clock + BURST). BURST = 0 means at least
 *      one µs between grants; BURST = b allows bursts that put the counter up to b ahead.
 *   Safe iff GAIN_MIN >= BURST + 1: after a loss the clock is above every token issued.
 *
 * VARIANTS (spin -D...):
 *   (none)            new scheme, BURST 0, GAIN_MIN 1                          -> holds
 *   -DBURST=2         bursts of 3 grants per µs, restarts take 3 µs           -> holds
 *   -DINCR_ONLY       the old scheme: token = INCR, seeded from the clock only
 *                     when the counter is missing; A1 and A2 kept             -> FAILS (replay after
 *                     a restore to an older non-zero counter)
 *   -DCLOCK_BACK      the new server's clock is 1 µs BEHIND the old one (drops A1) -> FAILS
 *   -DBURST=2 -DSHORT_RESTART  restarts take only BURST µs (A1 too weak for A2) -> FAILS
 *
 * Domains are small (clock 1..CLK_MAX) so the search is exhaustive in well under a second.
 */

#ifndef BURST
#define BURST 0
#endif

#ifndef CLK_MAX
#define CLK_MAX 10
#endif

#if defined(CLOCK_BACK)
#define GAIN_MIN (-1)
#elif defined(SHORT_RESTART)
#define GAIN_MIN (BURST)
#else
#define GAIN_MIN (BURST + 1)
#endif

#define MAX(a, b) ((a) > (b) -> (a) : (b))

byte counter = 0;   /* the token key; 0 = missing */
byte clk = 1;       /* the answering server's TIME, in µs (scaled down) */
byte last = 0;      /* ghost: the largest token ever issued */

active proctype redis()
{
    byte token;
    byte v;

end:
    do
    :: /* grant, under the rate assumption A2 */
       atomic {
           counter + 1 <= clk + BURST ->
#ifdef INCR_ONLY
           token = counter + 1;
           if
           :: token == 1 -> token = clk    /* missing counter: seed from the clock */
           :: else -> skip
           fi;
#else
           token = MAX(counter + 1, clk);
#endif
           counter = token;
           assert(token > last);            /* THE PROPERTY */
           last = token;
           token = 0
       }
    :: /* tick */
       atomic { clk < CLK_MAX -> clk++ }
    :: /* lose: restart from older data, or failover to a lagging replica (A1 on the clock) */
       atomic {
           (clk + GAIN_MIN >= 1 && clk + GAIN_MIN <= CLK_MAX) ->
           clk = clk + GAIN_MIN;
           select (v : 0 .. last);
           counter = v;
           v = 0
       }
    od
}
