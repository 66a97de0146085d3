/*
 * Model (b): fencing tokens of ONE resource under Redlock (RedlockProvider): N = 3 independent
 * Redis masters, grants on a majority, the token is the largest reply of the majority and is
 * written back before the lease is handed out; nodes restart from older data.
 * Checked by TokenSchemeModelsTest (lock-redis/src/test/java/dev/fencing/redis); run by hand with
 *
 *   spin -a [-DVARIANT] redlock-token.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * ---------------------------------------------------------------------------------------------
 * THE SCHEME. A grant round:
 *   1. asks every node to run the acquire script: SET lock NX, then
 *          reply = max(counter + 1, node's TIME in µs)   and stores reply as the node's counter.
 *      Per node the request is answered in time, answered LATE (the node runs it at any later
 *      moment, even during later rounds, and the reply is not counted), or lost / refused because
 *      the lock is held there (the node changes nothing).
 *   2. fails unless a majority (Q = 2) answered in time. Otherwise token T = max of those replies.
 *   3. if fewer than Q in-time replies equal T, writes T back to every node (raise-token:
 *      counter = max(counter, T)); each write-back is acknowledged in time, arrives late, or is
 *      lost. The grant stands only with Q in-time acknowledgements (RedlockProvider.attempt).
 *   4. hands out T.
 *
 * THE PROPERTY: tokens of successful grants strictly increase and never repeat: every handed-out
 * token is greater than the ghost `last` (the largest token handed out before). Grant rounds run
 * one after the other (one client), while late requests of earlier rounds, restarts and clock
 * ticks interleave with every step of a round. With -DOVERLAP two clients run rounds concurrently
 * (see below).
 *
 * EVENTS of the environment, at any moment:
 *   tick      - time advances 1 µs on every node's clock.
 *   stray     - a node runs an acquire, or its counter is raised to any value <= now + SKEW:
 *               covers every late acquire and late write-back (see `stray` below).
 *   restart   - a node's counter goes back to ANY value in 0..counter (restart from an older RDB
 *               snapshot/AOF, restart without persistence = 0 = missing, failover of that node
 *               to a lagging replica). Values above the current one are left out: a higher
 *               counter only raises later replies.
 *
 * ASSUMPTIONS:
 *   B1 clocks: node i's clock is now + off[i], with fixed offsets 0..SKEW chosen
 *      nondeterministically (clock skew between nodes up to SKEW µs); each clock is monotonic.
 *   B2 restarts take time: a restart advances time by RESTART_MIN µs, and
 *      RESTART_MIN >= SKEW + 1 — the restarted node's clock comes back above every clock
 *      reading before the restart (a restart/failover takes longer than the skew between nodes,
 *      and the node's own clock did not go back by more than the restart took).
 *   B3 rate: fewer than one grant per µs is sustained: a node runs an acquire only while its
 *      counter + 1 <= now + SKEW, i.e. no counter runs ahead of the fastest clock.
 *   B4 (only without -DOVERLAP) grant rounds do not overlap in time.
 * Under B1-B4 every counter stays <= now + SKEW, and a restarted node's clock is above it.
 *
 * VARIANTS (spin -D...):
 *   (none)            SKEW 1, RESTART_MIN 2, with write-back              -> holds
 *   -DSKEW=0          synchronized clocks                                 -> holds
 *   -DNO_WRITEBACK    step 3 skipped                                      -> FAILS
 *   -DINCR_ONLY       nodes take counter + 1, seeded from the clock only when missing; a node
 *                     restored from older data replays values            -> FAILS
 *   -DSHORT_RESTART   RESTART_MIN = SKEW: the restarted node's clock may come back at or below
 *                     a token seen before the restart (drops B2)          -> FAILS
 *   -DOVERLAP         two clients' rounds overlap (drops B4: the lock was granted twice while both
 *                     rounds were in flight, e.g. a node lost its lock key); property checked:
 *                     no token handed out twice, and a round started after another was handed
 *                     out gets a larger token                            -> FAILS, even with
 *                     -DSKEW=0: two overlapping rounds can take the same maximum from two
 *                     different nodes that read the same clock value (e.g. A gets 4,4,5 and
 *                     takes 5 from node 3; B, in the same µs, gets 5,5 from nodes 1 and 2).
 *                     A double grant can then carry equal tokens, which a MONOTONIC store
 *                     accepts from both holders.
 */

#define N 3
#define Q 2

#ifndef SKEW
#define SKEW 1
#endif

#ifdef SHORT_RESTART
#define RESTART_MIN (SKEW)
#else
#define RESTART_MIN (SKEW + 1)
#endif

#ifndef T_MAX
#define T_MAX 5
#endif

#define MAX(a, b) ((a) > (b) -> (a) : (b))

byte c[N];          /* each node's token counter; 0 = missing */
byte off[N];        /* each node's clock offset (B1) */
byte now = 1;       /* time; node i's TIME is now + off[i] */
byte last = 0;      /* ghost: the largest token handed out */
#ifdef OVERLAP
short issued = 0;   /* ghost: bit t set once token t was handed out */
#endif

/* the acquire script on node i: the reply lands in r */
inline acquire(i, r)
{
#ifdef INCR_ONLY
    r = c[i] + 1;
    if
    :: r == 1 -> r = now + off[i]   /* missing counter: seed from the clock */
    :: else -> skip
    fi;
#else
    r = MAX(c[i] + 1, now + off[i]);
#endif
    c[i] = r
}

/*
 * A late request executed by node k at some later moment. Instead of keeping messages in flight,
 * the environment may at any moment run a stray acquire on any node (under B3, like any acquire),
 * or raise any node's counter to any value up to now + SKEW. Every late acquire or write-back is
 * one of these (a write-back carries a T decided earlier, and T <= now + SKEW by B3), so this
 * covers them, plus the rounds of other clients that fail.
 */
inline stray(k)
{
    if
    :: atomic { c[k] + 1 <= now + SKEW -> acquire(k, v); v = 0 }
    :: atomic { c[k] < now + SKEW -> select (v : c[k] + 1 .. now + SKEW); c[k] = v; v = 0 }
    fi
}

/* step 1 on node k: answered in time, or not (late: see stray; lost; lock held there) */
inline ask(k)
{
    if
    :: atomic {
           c[k] + 1 <= now + SKEW -> acquire(k, r); got++;
           if   /* T is the largest in-time reply, atT how many in-time replies equal it */
           :: r > T -> T = r; atT = 1
           :: r == T -> atT++
           :: else -> skip
           fi;
           r = 0
       }
    :: true
    fi
}

/* step 3 on node k: raise-token acknowledged in time, or not (late: see stray; lost) */
inline raise(k)
{
    if
    :: atomic { c[k] = MAX(c[k], T); acks++ }
    :: true
    fi
}

proctype client()
{
    byte r, T, got, atT, acks;
#ifdef OVERLAP
    byte floor;
#endif

end:
    do
    :: /* a round; every node's step is one atomic action, the environment acts between them */
#ifdef OVERLAP
       floor = last;   /* the largest token handed out before this round started */
#endif
       ask(0); ask(1); ask(2);
#ifndef NO_WRITEBACK
       if
       :: got >= Q && atT < Q -> raise(0); raise(1); raise(2)
       :: else -> skip   /* no majority (nothing to write), or a majority already answered T */
       fi;
#endif
       /* 2 and 4: the grant stands with a majority of in-time replies and T on a majority */
       atomic {
           if
#ifdef NO_WRITEBACK
           :: got >= Q ->
#else
           :: got >= Q && (atT >= Q || acks >= Q) ->
#endif
#ifdef OVERLAP
              assert(T > floor);                   /* later round, larger token */
              assert((issued & (1 << T)) == 0);    /* never twice */
              issued = issued | (1 << T);
              last = MAX(last, T);
              floor = 0;
#else
              assert(T > last);                    /* THE PROPERTY */
              last = T;
#endif
           :: else -> skip   /* no grant: released everywhere, nothing handed out */
           fi;
           T = 0; got = 0; atT = 0; acks = 0
       }
    od
}

active proctype environment()
{
    byte i, v;

    /* B1: fixed clock offsets */
    atomic {
        select (v : 0 .. SKEW); off[0] = v;
        select (v : 0 .. SKEW); off[1] = v;
        select (v : 0 .. SKEW); off[2] = v;
        v = 0;
        run client();
#ifdef OVERLAP
        run client();
#endif
    }
end:
    do
    :: atomic { now < T_MAX -> now++ }
    :: stray(0)
    :: stray(1)
    :: stray(2)
    :: atomic {   /* restart from older data; the restart takes RESTART_MIN µs (B2) */
           now + RESTART_MIN <= T_MAX ->
           now = now + RESTART_MIN;
           select (i : 0 .. N - 1);
           select (v : 0 .. c[i]);
           c[i] = v; i = 0; v = 0
       }
    od
}
