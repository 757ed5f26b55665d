//! MD5's compression function over two independent streams at once.
//!
//! Patching a specialization constant rehashes two tails of one container: the plain MD5 of the
//! bitcode (the `HASH` part) and the container digest. Each MD5 is one long dependency chain
//! (every step needs the previous one), so a core runs one at a fraction of its width; two
//! chains interleaved step by step fill the idle issue slots and take little longer than one.
//! The `md5` crate compresses one stream at a time, so this is written here; its block
//! function stays the reference (tested equal below) and does the single-stream blocks.

/// MD5's per-step functions (RFC 1321 §3.4), in forms with one fewer operation.
#[inline(always)]
fn f(b: u32, c: u32, d: u32) -> u32 {
    d ^ (b & (c ^ d))
}
#[inline(always)]
fn g(b: u32, c: u32, d: u32) -> u32 {
    c ^ (d & (b ^ c))
}
#[inline(always)]
fn h(b: u32, c: u32, d: u32) -> u32 {
    b ^ c ^ d
}
#[inline(always)]
fn i(b: u32, c: u32, d: u32) -> u32 {
    c ^ (b | !d)
}

fn words(block: &[u8; 64]) -> [u32; 16] {
    let mut m = [0u32; 16];
    for (w, c) in m.iter_mut().zip(block.as_chunks::<4>().0) {
        *w = u32::from_le_bytes(*c);
    }
    m
}

/// One block of each stream: `x` and `y` are independent states.
fn compress_pair(x: &mut [u32; 4], bx: &[u8; 64], y: &mut [u32; 4], by: &[u8; 64]) {
    let (m0, m1) = (words(bx), words(by));
    // Each variable holds the same register of both streams ([0] for x, [1] for y).
    let mut a = [x[0], y[0]];
    let mut b = [x[1], y[1]];
    let mut c = [x[2], y[2]];
    let mut d = [x[3], y[3]];
    macro_rules! step {
        ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $g:expr, $s:expr, $k:expr) => {
            $a[0] = $b[0].wrapping_add(
                $a[0]
                    .wrapping_add($f($b[0], $c[0], $d[0]))
                    .wrapping_add($k)
                    .wrapping_add(m0[$g])
                    .rotate_left($s),
            );
            $a[1] = $b[1].wrapping_add(
                $a[1]
                    .wrapping_add($f($b[1], $c[1], $d[1]))
                    .wrapping_add($k)
                    .wrapping_add(m1[$g])
                    .rotate_left($s),
            );
        };
    }
    step!(f, a, b, c, d, 0, 7, 0xd76aa478);
    step!(f, d, a, b, c, 1, 12, 0xe8c7b756);
    step!(f, c, d, a, b, 2, 17, 0x242070db);
    step!(f, b, c, d, a, 3, 22, 0xc1bdceee);
    step!(f, a, b, c, d, 4, 7, 0xf57c0faf);
    step!(f, d, a, b, c, 5, 12, 0x4787c62a);
    step!(f, c, d, a, b, 6, 17, 0xa8304613);
    step!(f, b, c, d, a, 7, 22, 0xfd469501);
    step!(f, a, b, c, d, 8, 7, 0x698098d8);
    step!(f, d, a, b, c, 9, 12, 0x8b44f7af);
    step!(f, c, d, a, b, 10, 17, 0xffff5bb1);
    step!(f, b, c, d, a, 11, 22, 0x895cd7be);
    step!(f, a, b, c, d, 12, 7, 0x6b901122);
    step!(f, d, a, b, c, 13, 12, 0xfd987193);
    step!(f, c, d, a, b, 14, 17, 0xa679438e);
    step!(f, b, c, d, a, 15, 22, 0x49b40821);
    step!(g, a, b, c, d, 1, 5, 0xf61e2562);
    step!(g, d, a, b, c, 6, 9, 0xc040b340);
    step!(g, c, d, a, b, 11, 14, 0x265e5a51);
    step!(g, b, c, d, a, 0, 20, 0xe9b6c7aa);
    step!(g, a, b, c, d, 5, 5, 0xd62f105d);
    step!(g, d, a, b, c, 10, 9, 0x02441453);
    step!(g, c, d, a, b, 15, 14, 0xd8a1e681);
    step!(g, b, c, d, a, 4, 20, 0xe7d3fbc8);
    step!(g, a, b, c, d, 9, 5, 0x21e1cde6);
    step!(g, d, a, b, c, 14, 9, 0xc33707d6);
    step!(g, c, d, a, b, 3, 14, 0xf4d50d87);
    step!(g, b, c, d, a, 8, 20, 0x455a14ed);
    step!(g, a, b, c, d, 13, 5, 0xa9e3e905);
    step!(g, d, a, b, c, 2, 9, 0xfcefa3f8);
    step!(g, c, d, a, b, 7, 14, 0x676f02d9);
    step!(g, b, c, d, a, 12, 20, 0x8d2a4c8a);
    step!(h, a, b, c, d, 5, 4, 0xfffa3942);
    step!(h, d, a, b, c, 8, 11, 0x8771f681);
    step!(h, c, d, a, b, 11, 16, 0x6d9d6122);
    step!(h, b, c, d, a, 14, 23, 0xfde5380c);
    step!(h, a, b, c, d, 1, 4, 0xa4beea44);
    step!(h, d, a, b, c, 4, 11, 0x4bdecfa9);
    step!(h, c, d, a, b, 7, 16, 0xf6bb4b60);
    step!(h, b, c, d, a, 10, 23, 0xbebfbc70);
    step!(h, a, b, c, d, 13, 4, 0x289b7ec6);
    step!(h, d, a, b, c, 0, 11, 0xeaa127fa);
    step!(h, c, d, a, b, 3, 16, 0xd4ef3085);
    step!(h, b, c, d, a, 6, 23, 0x04881d05);
    step!(h, a, b, c, d, 9, 4, 0xd9d4d039);
    step!(h, d, a, b, c, 12, 11, 0xe6db99e5);
    step!(h, c, d, a, b, 15, 16, 0x1fa27cf8);
    step!(h, b, c, d, a, 2, 23, 0xc4ac5665);
    step!(i, a, b, c, d, 0, 6, 0xf4292244);
    step!(i, d, a, b, c, 7, 10, 0x432aff97);
    step!(i, c, d, a, b, 14, 15, 0xab9423a7);
    step!(i, b, c, d, a, 5, 21, 0xfc93a039);
    step!(i, a, b, c, d, 12, 6, 0x655b59c3);
    step!(i, d, a, b, c, 3, 10, 0x8f0ccc92);
    step!(i, c, d, a, b, 10, 15, 0xffeff47d);
    step!(i, b, c, d, a, 1, 21, 0x85845dd1);
    step!(i, a, b, c, d, 8, 6, 0x6fa87e4f);
    step!(i, d, a, b, c, 15, 10, 0xfe2ce6e0);
    step!(i, c, d, a, b, 6, 15, 0xa3014314);
    step!(i, b, c, d, a, 13, 21, 0x4e0811a1);
    step!(i, a, b, c, d, 4, 6, 0xf7537e82);
    step!(i, d, a, b, c, 11, 10, 0xbd3af235);
    step!(i, c, d, a, b, 2, 15, 0x2ad7d2bb);
    step!(i, b, c, d, a, 9, 21, 0xeb86d391);
    for (s, v) in x.iter_mut().zip([a[0], b[0], c[0], d[0]]) {
        *s = s.wrapping_add(v);
    }
    for (s, v) in y.iter_mut().zip([a[1], b[1], c[1], d[1]]) {
        *s = s.wrapping_add(v);
    }
}

/// Compresses `xs` into `x` and `ys` into `y`, two blocks at a time while both have one, then
/// the rest of the longer one alone. Each block list is given as whole blocks of the data
/// followed by the padded final blocks.
pub(crate) fn compress_two(
    x: &mut [u32; 4],
    xs: (&[[u8; 64]], &[[u8; 64]]),
    y: &mut [u32; 4],
    ys: (&[[u8; 64]], &[[u8; 64]]),
) {
    let mut xi = xs.0.iter().chain(xs.1);
    let mut yi = ys.0.iter().chain(ys.1);
    loop {
        match (xi.next(), yi.next()) {
            (Some(bx), Some(by)) => compress_pair(x, bx, y, by),
            (Some(bx), None) => {
                md5::block_api::compress(x, std::slice::from_ref(bx));
                for bx in xi {
                    md5::block_api::compress(x, std::slice::from_ref(bx));
                }
                return;
            }
            (None, Some(by)) => {
                md5::block_api::compress(y, std::slice::from_ref(by));
                for by in yi {
                    md5::block_api::compress(y, std::slice::from_ref(by));
                }
                return;
            }
            (None, None) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_equal_the_md5_crate_block_function() {
        let data: Vec<u8> = (0..64 * 7u32).map(|i| (i * 31 + 7) as u8).collect();
        let (blocks, _) = data.as_chunks::<64>();
        for (nx, ny) in [(0, 0), (1, 1), (3, 7), (7, 2), (0, 5), (4, 0)] {
            let (mut x, mut y) = ([1u32, 2, 3, 4], [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 9]);
            let (mut rx, mut ry) = (x, y);
            md5::block_api::compress(&mut rx, &blocks[..nx]);
            md5::block_api::compress(&mut ry, &blocks[7 - ny..]);
            // Split each list differently between its two slices.
            compress_two(
                &mut x,
                (&blocks[..nx / 2], &blocks[nx / 2..nx]),
                &mut y,
                (&blocks[7 - ny..], &[]),
            );
            assert_eq!((x, y), (rx, ry), "{nx} and {ny} blocks");
        }
    }
}
