"""A SOCK_SEQPACKET relay in front of fake-rfkill, for tests that stand
between the applet and its "kernel": one upstream connection per client,
made when the client connects.  Subclasses say what happens to the two
sockets of a pair (connected()); stop() ends every pair."""
import os
import socket
import threading


def shutdown(*socks):
    """Ends a connection both ways: to its peer, the other side closed."""
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class SeqpacketRelay:
    def __init__(self, path, upstream):
        self.path, self.upstream = path, upstream
        self.lock = threading.Lock()
        self.pairs = []  # (client, upstream)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # Listening before the name appears, as fake-rfkill does: the
        # applet connects as soon as it sees the name.
        self.listener.bind(path + '.tmp')
        self.listener.listen(8)
        os.rename(path + '.tmp', path)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            up = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            up.connect(self.upstream)
            with self.lock:
                self.pairs.append((client, up))
            self.connected(client, up)

    def connected(self, client, up):
        raise NotImplementedError

    def stop(self):
        self.listener.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        with self.lock:
            for pair in self.pairs:
                shutdown(*pair)
