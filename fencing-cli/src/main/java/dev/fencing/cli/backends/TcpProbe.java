package dev.fencing.cli.backends;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

/**
 * One plain TCP connect per server address, before a client library is built: a dead address is
 * answered by the operating system at once ("Connection refused"), whereas jetcd and Curator
 * retry until their own timeouts and then report only that they gave up.
 */
final class TcpProbe {

    private TcpProbe() {}

    /**
     * Returns once one of {@code addresses} accepts a connection (which is closed again at once).
     *
     * @throws IOException the last address's failure, if none accepted within {@code timeout} each
     */
    static void anyAccepts(List<InetSocketAddress> addresses, Duration timeout) throws IOException {
        IOException last = null;
        for (InetSocketAddress address : addresses) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(address.getHostString(), address.getPort()),
                        (int) timeout.toMillis());
                return;
            } catch (IOException e) {
                last = new IOException("connecting to " + address.getHostString() + ":" + address.getPort() + " failed",
                        e);
            }
        }
        if (last == null) {
            throw new IllegalArgumentException("no address to probe");
        }
        throw last;
    }
}
