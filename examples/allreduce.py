#!/usr/bin/env python3
"""A distributed program without PyTorch: every task of an srun step rendezvous at
MASTER_ADDR:MASTER_PORT over TCP and all-reduces a number (rank + 1), as a training job's first
collective would. Rank 0 listens, gathers every rank's value, sums and sends the sum back; each
task prints "rank R of N on NODE: sum S". Exits non-zero on any failure (30 s to rendezvous)."""
import os
import socket
import sys
import time

rank = int(os.environ["SLURM_PROCID"])
world = int(os.environ["SLURM_NTASKS"])
addr = os.environ["MASTER_ADDR"]
port = int(os.environ["MASTER_PORT"])
node = os.environ.get("SLURMD_NODENAME", "?")
value = rank + 1


def read_line(conn):
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            raise RuntimeError("connection closed")
        data += chunk
    return data.decode().strip()


if rank == 0:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((addr, port))
    server.listen(world)
    server.settimeout(30)
    peers = []
    total = value
    while len(peers) < world - 1:
        conn, _ = server.accept()
        total += int(read_line(conn))
        peers.append(conn)
    for conn in peers:
        conn.sendall(f"{total}\n".encode())
        conn.close()
    server.close()
else:
    deadline = time.time() + 30
    while True:
        try:
            conn = socket.create_connection((addr, port), timeout=5)
            break
        except OSError:
            if time.time() > deadline:
                sys.exit(f"rank {rank}: cannot reach {addr}:{port}")
            time.sleep(0.05)
    conn.sendall(f"{value}\n".encode())
    total = int(read_line(conn))
    conn.close()

print(f"rank {rank} of {world} on {node}: sum {total}", flush=True)
