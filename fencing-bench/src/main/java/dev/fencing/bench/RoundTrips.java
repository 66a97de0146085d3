package dev.fencing.bench;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * A socket factory for pgJDBC ({@code socketFactory=dev.fencing.cli.RoundTrips}) that counts round
 * trips: each read that follows a write on a connection is one wait for the server. The bench uses
 * it to show how many round trips each SQL contender makes.
 */
public final class RoundTrips extends SocketFactory {

    private static final AtomicLong TURNS = new AtomicLong();

    /** The round trips counted so far, on every connection made through this factory. */
    static long count() {
        return TURNS.get();
    }

    @Override
    public Socket createSocket() {
        return new CountingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connect(new InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connect(new InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connect(new InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connect(new InetSocketAddress(address, port));
    }

    private static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = new CountingSocket();
        socket.connect(address);
        return socket;
    }

    private static final class CountingSocket extends Socket {
        private volatile boolean wrote;

        @Override
        public InputStream getInputStream() throws IOException {
            return new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    turn();
                    return super.read();
                }

                @Override
                public int read(byte[] buffer, int offset, int length) throws IOException {
                    turn();
                    return super.read(buffer, offset, length);
                }
            };
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            OutputStream out = super.getOutputStream();
            return new FilterOutputStream(out) {
                @Override
                public void write(int b) throws IOException {
                    wrote = true;
                    out.write(b);
                }

                @Override
                public void write(byte[] buffer, int offset, int length) throws IOException {
                    wrote = true;
                    out.write(buffer, offset, length);
                }
            };
        }

        private void turn() {
            if (wrote) {
                wrote = false;
                TURNS.incrementAndGet();
            }
        }
    }
}
