"""Write the 128-switch 2-D torus of seed 002 §VI as a netreplay graph file (16 x 8, wrap-around
links, one node per switch). netreplay's `torus:` is a k-ary n-cube, and 128 is not a square.
Switch s sits at column s % 8, row s // 8, so `consecutive` puts 16 ranks on a 8 x 2 block.
    python3 results/seed002-fig10-app/torus16x8.py > results/seed002-fig10-app/torus16x8.graph"""
W, H = 8, 16
print(f"# 2-D torus, {W} columns x {H} rows = {W * H} switches, degree 4 (seed 002 §VI)")
print("nodes_per_switch 1")
for y in range(H):
    for x in range(W):
        s = x + W * y
        print(s, (x + 1) % W + W * y)  # east neighbour, wrapping
        print(s, x + W * ((y + 1) % H))  # south neighbour, wrapping
