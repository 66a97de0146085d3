package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import java.nio.file.Path;

/**
 * A {@link LabMember} that is one server process with a data directory: the nemesis's signals go
 * to its process (and the processes it started), and its backups are file-level copies of that
 * directory, taken and put back only while it is killed.
 */
abstract class ProcessLabMember implements LabMember {

    /** The server's process. */
    abstract ChildProcess process();

    /** The directory {@link #backUp()} copies and {@link #restore} replaces. */
    abstract Path data();

    /** Its name, role, address and log, for messages. */
    public abstract String describe();

    @Override
    public void pause() {
        process().pause();
    }

    @Override
    public void resume() {
        process().resume();
    }

    @Override
    public void kill() {
        process().kill();
    }

    /** Starts it again on its address and data; returns once its port is open. */
    @Override
    public void start() {
        process().start();
    }

    @Override
    public Path backUp() {
        requireKilled("backUp");
        return DataDirectories.backUp(data());
    }

    @Override
    public void restore(Path backup) {
        requireKilled("restore");
        DataDirectories.restore(backup, data());
    }

    @Override
    public boolean isRunning() {
        return process().isAlive();
    }

    @Override
    public String toString() {
        return describe();
    }

    private void requireKilled(String what) {
        if (process().isAlive()) {
            throw new IllegalStateException(what + " needs the member killed first: " + describe());
        }
    }
}
