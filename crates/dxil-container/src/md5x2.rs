//! MD5's compression function, over one stream or two independent streams at once.
//!
//! Patching a specialization constant rehashes two tails of one container: the plain MD5 of the
//! bitcode (the `HASH` part) and the container digest. Each MD5 is one long dependency chain
//! (every step needs the previous one), so a core runs one at a fraction of its width; two
//! chains interleaved step by step fill the idle issue slots and take little longer than one.
//! The `md5` crate compresses one stream at a time, and its steps add the message word and the
//! constant after the step function, on the chain; so the block function is written here, for
//! one stream too (signing a container hashes it twice in series). The crate's block function
//! stays the reference (tested equal below).

/// The little-endian message word `i` of a block, read where a step needs it (a memory operand
/// of its add): a copy of the sixteen words in locals only spilled registers, two streams'
/// states and temporaries already fill them.
#[inline(always)]
fn word(block: &[u8; 64], i: usize) -> u32 {
    u32::from_le_bytes(block.as_chunks::<4>().0[i])
}

/// MD5's per-step functions (RFC 1321 §3.4), each split in two parts that add up to it: the
/// first without `b` (see [`compress_lanes`]), the second with it.
#[inline(always)]
fn f(b: u32, c: u32, d: u32) -> (u32, u32) {
    (0, d ^ (b & (c ^ d)))
}
/// `(b & d) | (c & !d)`: the two halves share no bit, so `|` is `+` and `c & !d` goes first.
#[inline(always)]
fn g(b: u32, c: u32, d: u32) -> (u32, u32) {
    (c & !d, b & d)
}
#[inline(always)]
fn h(b: u32, c: u32, d: u32) -> (u32, u32) {
    (0, b ^ (c ^ d))
}
#[inline(always)]
fn i(b: u32, c: u32, d: u32) -> (u32, u32) {
    (0, c ^ (b | !d))
}

/// MD5's 64 step constants (RFC 1321 §3.4).
static K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// One block of each of `N` independent streams (one, or two interleaved).
///
/// Each step is `a = b + rotl(a + fn(b, c, d) + k + m, s)`, where `b` is the register the
/// previous step wrote, so only the work that reads `b` is on the chain from step to step: the
/// sum of `a`, the message word, the constant and the part of `fn` without `b` is written
/// first, the rest after it (four or five dependent operations a step, where adding `k` and `m`
/// after `fn` made six or seven). Each variable holds the same register of every stream
/// (`[l]` for stream `l`), their steps written side by side.
#[inline(always)]
fn compress_lanes<const N: usize>(states: [&mut [u32; 4]; N], blocks: [&[u8; 64]; N]) {
    // Read from memory, not folded into the code: LLVM adds constants last in a sum, which
    // would put `k` on the chain.
    let k: &[u32; 64] = std::hint::black_box(&K);
    let mut a = states.each_ref().map(|s| s[0]);
    let mut b = states.each_ref().map(|s| s[1]);
    let mut c = states.each_ref().map(|s| s[2]);
    let mut d = states.each_ref().map(|s| s[3]);
    macro_rules! step {
        ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $g:expr, $s:expr, $k:expr) => {
            for l in 0..N {
                let (pre, post) = $f($b[l], $c[l], $d[l]);
                let t = $a[l]
                    .wrapping_add(pre)
                    .wrapping_add(word(blocks[l], $g).wrapping_add($k));
                $a[l] = $b[l].wrapping_add(t.wrapping_add(post).rotate_left($s));
            }
        };
    }
    step!(f, a, b, c, d, 0, 7, k[0]);
    step!(f, d, a, b, c, 1, 12, k[1]);
    step!(f, c, d, a, b, 2, 17, k[2]);
    step!(f, b, c, d, a, 3, 22, k[3]);
    step!(f, a, b, c, d, 4, 7, k[4]);
    step!(f, d, a, b, c, 5, 12, k[5]);
    step!(f, c, d, a, b, 6, 17, k[6]);
    step!(f, b, c, d, a, 7, 22, k[7]);
    step!(f, a, b, c, d, 8, 7, k[8]);
    step!(f, d, a, b, c, 9, 12, k[9]);
    step!(f, c, d, a, b, 10, 17, k[10]);
    step!(f, b, c, d, a, 11, 22, k[11]);
    step!(f, a, b, c, d, 12, 7, k[12]);
    step!(f, d, a, b, c, 13, 12, k[13]);
    step!(f, c, d, a, b, 14, 17, k[14]);
    step!(f, b, c, d, a, 15, 22, k[15]);
    step!(g, a, b, c, d, 1, 5, k[16]);
    step!(g, d, a, b, c, 6, 9, k[17]);
    step!(g, c, d, a, b, 11, 14, k[18]);
    step!(g, b, c, d, a, 0, 20, k[19]);
    step!(g, a, b, c, d, 5, 5, k[20]);
    step!(g, d, a, b, c, 10, 9, k[21]);
    step!(g, c, d, a, b, 15, 14, k[22]);
    step!(g, b, c, d, a, 4, 20, k[23]);
    step!(g, a, b, c, d, 9, 5, k[24]);
    step!(g, d, a, b, c, 14, 9, k[25]);
    step!(g, c, d, a, b, 3, 14, k[26]);
    step!(g, b, c, d, a, 8, 20, k[27]);
    step!(g, a, b, c, d, 13, 5, k[28]);
    step!(g, d, a, b, c, 2, 9, k[29]);
    step!(g, c, d, a, b, 7, 14, k[30]);
    step!(g, b, c, d, a, 12, 20, k[31]);
    step!(h, a, b, c, d, 5, 4, k[32]);
    step!(h, d, a, b, c, 8, 11, k[33]);
    step!(h, c, d, a, b, 11, 16, k[34]);
    step!(h, b, c, d, a, 14, 23, k[35]);
    step!(h, a, b, c, d, 1, 4, k[36]);
    step!(h, d, a, b, c, 4, 11, k[37]);
    step!(h, c, d, a, b, 7, 16, k[38]);
    step!(h, b, c, d, a, 10, 23, k[39]);
    step!(h, a, b, c, d, 13, 4, k[40]);
    step!(h, d, a, b, c, 0, 11, k[41]);
    step!(h, c, d, a, b, 3, 16, k[42]);
    step!(h, b, c, d, a, 6, 23, k[43]);
    step!(h, a, b, c, d, 9, 4, k[44]);
    step!(h, d, a, b, c, 12, 11, k[45]);
    step!(h, c, d, a, b, 15, 16, k[46]);
    step!(h, b, c, d, a, 2, 23, k[47]);
    step!(i, a, b, c, d, 0, 6, k[48]);
    step!(i, d, a, b, c, 7, 10, k[49]);
    step!(i, c, d, a, b, 14, 15, k[50]);
    step!(i, b, c, d, a, 5, 21, k[51]);
    step!(i, a, b, c, d, 12, 6, k[52]);
    step!(i, d, a, b, c, 3, 10, k[53]);
    step!(i, c, d, a, b, 10, 15, k[54]);
    step!(i, b, c, d, a, 1, 21, k[55]);
    step!(i, a, b, c, d, 8, 6, k[56]);
    step!(i, d, a, b, c, 15, 10, k[57]);
    step!(i, c, d, a, b, 6, 15, k[58]);
    step!(i, b, c, d, a, 13, 21, k[59]);
    step!(i, a, b, c, d, 4, 6, k[60]);
    step!(i, d, a, b, c, 11, 10, k[61]);
    step!(i, c, d, a, b, 2, 15, k[62]);
    step!(i, b, c, d, a, 9, 21, k[63]);
    for (l, s) in states.into_iter().enumerate() {
        for (w, v) in s.iter_mut().zip([a[l], b[l], c[l], d[l]]) {
            *w = w.wrapping_add(v);
        }
    }
}

/// MD5's block function over one stream (the `md5` crate's, with the step order of
/// [`compress_lanes`]: a shorter chain from step to step).
pub(crate) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    for block in blocks {
        compress_lanes([&mut *state], [block]);
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
            (Some(bx), Some(by)) => compress_lanes([&mut *x, &mut *y], [bx, by]),
            (Some(bx), None) => {
                compress(x, std::slice::from_ref(bx));
                for bx in xi {
                    compress(x, std::slice::from_ref(bx));
                }
                return;
            }
            (None, Some(by)) => {
                compress(y, std::slice::from_ref(by));
                for by in yi {
                    compress(y, std::slice::from_ref(by));
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
    fn one_stream_equals_the_md5_crate_block_function() {
        let data: Vec<u8> = (0..64 * 9u32).map(|i| (i * 57 + 11) as u8).collect();
        let (blocks, _) = data.as_chunks::<64>();
        for n in 0..=blocks.len() {
            let (mut ours, mut theirs) = ([5u32, 6, 7, 8], [5u32, 6, 7, 8]);
            compress(&mut ours, &blocks[..n]);
            md5::block_api::compress(&mut theirs, &blocks[..n]);
            assert_eq!(ours, theirs, "{n} blocks");
        }
    }

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
