package dev.fencing.core.leader;

/** Why a term ended. */
public enum RevocationReason {

    /**
     * The term's lease ended without this candidate giving it up: a renewal found another owner,
     * renewals failed until its validity ran out, the process paused past its deadline, the
     * provider was closed, or the lease was released by someone else. The candidate campaigns
     * again after the re-election backoff, unless its provider was closed.
     */
    LOST,

    /** {@link Leadership#stop()} or {@link Leadership#close()} released the lease. */
    STOPPED
}
