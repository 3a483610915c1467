# tree_wire.py - the tree port's frames for the tests that speak to a step's
# server as a hostile peer or tool (test_munge.sh, test_remote_tool.sh; they
# put this directory on PYTHONPATH): a 16-byte header (magic "SPMX", version
# 1, type, flags, seq, payload length; little endian) and the payload.
import socket
import struct

AUTH = 0xA0  # the handshake's frame type


def frame(payload, length=None, ftype=AUTH):
    """One frame of payload; length overrides the header's length field."""
    n = len(payload) if length is None else length
    return struct.pack('<IBBHII', 0x584d5053, 1, ftype, 0, 0, n) + payload


def recv_frame(s):
    """The next frame's payload, or None when the peer closed first."""
    h = b''
    while len(h) < 16:
        c = s.recv(16 - len(h))
        if not c:
            return None
        h += c
    n = struct.unpack('<IBBHII', h)[5]
    p = b''
    while len(p) < n:
        c = s.recv(n - len(p))
        if not c:
            return None
        p += c
    return p


def closed(s):
    """True when the server closes the connection (EOF or reset) within 15 s,
    reading and dropping whatever it still sends."""
    s.settimeout(15)
    try:
        while True:
            if not s.recv(4096):
                return True
    except (ConnectionResetError, socket.timeout) as e:
        return isinstance(e, ConnectionResetError)
