//! Fuzzes tcgemm's argument validation on the CPU: the pure, public functions of [`Gemm`]
//! (`required_lens`, `validate`, the `*_or_packed` getters and the builder) on arbitrary shapes,
//! leading dimensions, batch strides, scalars and buffer lengths. Nothing here touches the CUDA
//! driver.
//!
//! Besides "never panics", every result is compared with an independent model of the documented
//! rules (docs/errors.md), computed in `u128` so that it cannot overflow itself: the same `Ok`
//! values, or the same `Error::InvalidArgument { what, .. }`. Then the invariants callers rely on:
//! an accepted call fits the kernels' 32-bit counts, its buffers hold the required lengths, its C
//! batch items do not overlap, the exact required lengths are accepted and one element less is not.
//!
//! Run: `cd fuzz && TCGEMM_PTX=kept cargo fuzz run validate -- -max_total_time=60`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcgemm::{Error, Gemm, Precision};

/// Largest `m`, `n`, `k` the library accepts (the kernels index with `i32`).
const MAX_DIM: usize = i32::MAX as usize;
/// Largest batch the library accepts (the kernels count it with `u32`).
const MAX_BATCH: u64 = u32::MAX as u64;

/// Reads the fuzz input front to back; past its end every read is 0.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// A size biased towards small values and the limits the library checks against.
    fn size(&mut self) -> usize {
        let sel = self.u8();
        match sel {
            0..=95 => usize::from(sel % 12),
            96..=127 => usize::from(self.u8()),
            128..=143 => usize::from(self.u16()),
            _ => {
                let raw = self.u64();
                let specials: [u64; 20] = [
                    0,
                    1,
                    i32::MAX as u64 - 1,
                    i32::MAX as u64,
                    i32::MAX as u64 + 1,
                    u32::MAX as u64 - 1,
                    u32::MAX as u64,
                    u32::MAX as u64 + 1,
                    65535 * 65535,
                    65535 * 65535 + 1,
                    1 << 31,
                    1 << 32,
                    1 << 62,
                    1 << 63,
                    u64::MAX / 2,
                    u64::MAX / 2 + 1,
                    u64::MAX - 1,
                    u64::MAX,
                    raw,
                    raw >> (raw % 64),
                ];
                let v = specials[usize::from(sel - 144) % specials.len()];
                usize::try_from(v).unwrap_or(usize::MAX)
            }
        }
    }

    /// A value near `around` (one below to six above), or any [`Bytes::size`].
    fn near(&mut self, around: usize) -> usize {
        let sel = self.u8();
        if sel < 128 {
            let delta = usize::from(sel % 8);
            around.saturating_add(delta).saturating_sub(1)
        } else {
            self.size()
        }
    }

    /// A scalar from raw bits, biased towards 0, -0, 1 and NaN.
    fn scalar(&mut self) -> f32 {
        match self.u8() % 8 {
            0 => 0.0,
            1 => -0.0,
            2 => 1.0,
            3 => f32::NAN,
            4 => f32::INFINITY,
            _ => f32::from_bits(self.u32()),
        }
    }
}

/// Stored `(rows, cols)` of A: `m×k`, or `k×m` when transposed.
fn shape_a(g: &Gemm) -> (usize, usize) {
    if g.trans_a {
        (g.k, g.m)
    } else {
        (g.m, g.k)
    }
}

/// Stored `(rows, cols)` of B: `k×n`, or `n×k` when transposed.
fn shape_b(g: &Gemm) -> (usize, usize) {
    if g.trans_b {
        (g.n, g.k)
    } else {
        (g.k, g.n)
    }
}

/// `rows · ld`, saturating at `usize::MAX` (the packed batch stride).
fn packed_stride(rows: usize, ld: usize) -> usize {
    usize::try_from(rows as u128 * ld as u128).unwrap_or(usize::MAX)
}

/// The model's `(ld, stride)` of A, B and C.
fn model_layout(g: &Gemm) -> [(usize, usize); 3] {
    let (ra, ca) = shape_a(g);
    let (rb, cb) = shape_b(g);
    let lda = g.lda.unwrap_or(ca);
    let ldb = g.ldb.unwrap_or(cb);
    let ldc = g.ldc.unwrap_or(g.n);
    [
        (lda, g.stride_a.unwrap_or(packed_stride(ra, lda))),
        (ldb, g.stride_b.unwrap_or(packed_stride(rb, ldb))),
        (ldc, g.stride_c.unwrap_or(packed_stride(g.m, ldc))),
    ]
}

/// Elements one `rows×cols` item spans with leading dimension `ld`, in `u128` (cannot overflow).
fn item_span(rows: usize, cols: usize, ld: usize) -> u128 {
    if rows == 0 || cols == 0 {
        return 0;
    }
    (rows as u128 - 1) * ld as u128 + cols as u128
}

/// Elements `batch` items span `stride` apart, or `None` when that exceeds `usize`.
fn model_span(rows: usize, cols: usize, ld: usize, stride: usize, batch: usize) -> Option<usize> {
    let item = item_span(rows, cols, ld);
    if item == 0 || batch == 0 {
        return Some(0);
    }
    let total = (stride as u128)
        .checked_mul(batch as u128 - 1)?
        .checked_add(item)?;
    usize::try_from(total).ok()
}

/// No output: `m`, `n` or `batch` is zero.
fn is_empty(g: &Gemm) -> bool {
    g.m == 0 || g.n == 0 || g.batch == 0
}

/// A and B are referenced: `k > 0` and `alpha != 0` (NaN is not zero).
fn reads_ab(g: &Gemm) -> bool {
    g.k > 0 && g.alpha != 0.0
}

/// The documented `required_lens`: `Err(what)` names the operand whose span overflows (C first).
fn model_required(g: &Gemm) -> Result<(usize, usize, usize), &'static str> {
    if is_empty(g) {
        return Ok((0, 0, 0));
    }
    let [(lda, sa), (ldb, sb), (ldc, sc)] = model_layout(g);
    let c = model_span(g.m, g.n, ldc, sc, g.batch).ok_or("c")?;
    if !reads_ab(g) {
        return Ok((0, 0, c));
    }
    let (ra, ca) = shape_a(g);
    let (rb, cb) = shape_b(g);
    let a = model_span(ra, ca, lda, sa, g.batch).ok_or("a")?;
    let b = model_span(rb, cb, ldb, sb, g.batch).ok_or("b")?;
    Ok((a, b, c))
}

/// The documented `validate`, check by check in the library's order.
fn model_validate(g: &Gemm, la: usize, lb: usize, lc: usize) -> Result<(), &'static str> {
    for (what, v) in [("m", g.m), ("n", g.n), ("k", g.k)] {
        if v > MAX_DIM {
            return Err(what);
        }
    }
    if g.batch as u64 > MAX_BATCH {
        return Err("batch");
    }
    let [(lda, _), (ldb, _), (ldc, sc)] = model_layout(g);
    for (what, ld, cols) in [
        ("lda", lda, shape_a(g).1),
        ("ldb", ldb, shape_b(g).1),
        ("ldc", ldc, g.n),
    ] {
        if ld < cols {
            return Err(what);
        }
    }
    if is_empty(g) {
        return Ok(());
    }
    if g.batch > 1 {
        let item = item_span(g.m, g.n, ldc);
        if item > usize::MAX as u128 {
            return Err("c");
        }
        if (sc as u128) < item {
            return Err("stride_c");
        }
    }
    let (na, nb, nc) = model_required(g)?;
    for (what, len, need) in [("a", la, na), ("b", lb, nb), ("c", lc, nc)] {
        if len < need {
            return Err(what);
        }
    }
    Ok(())
}

/// The library's result reduced to what the model predicts; panics on any other error variant, on
/// an empty explanation or on a message that does not name the argument.
fn outcome<T>(r: tcgemm::Result<T>) -> Result<T, &'static str> {
    let e = match r {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let text = e.to_string();
    match e {
        Error::InvalidArgument { what, why } => {
            assert!(!why.is_empty(), "empty explanation for `{what}`");
            assert!(
                text.contains(&format!("`{what}`")),
                "message does not name `{what}`: {text}"
            );
            Err(what)
        }
        other => panic!("validation returned a non-argument error: {other:?}"),
    }
}

/// `Gemm::validate`, reduced by [`outcome`].
fn validate(g: &Gemm, la: usize, lb: usize, lc: usize) -> Result<(), &'static str> {
    outcome(g.validate(la, lb, lc))
}

/// One of the four precisions.
fn precision(sel: u8) -> Precision {
    match sel % 4 {
        0 => Precision::Default,
        1 => Precision::Exact,
        2 => Precision::Tf32,
        _ => Precision::F16Accumulate,
    }
}

/// Decodes a call through the public builder.
fn decode(bytes: &mut Bytes) -> Gemm {
    let (m, n, k) = (bytes.size(), bytes.size(), bytes.size());
    let flags = bytes.u8();
    let mut g = Gemm::new(m, n, k)
        .trans_a(flags & 0x40 != 0)
        .trans_b(flags & 0x80 != 0)
        .batch(if flags & 0x3f == 0 { 1 } else { bytes.size() })
        .alpha(bytes.scalar())
        .beta(bytes.scalar())
        .precision(precision(bytes.u8()));
    // Leading dimensions near their packed value (so both sides of the bound are reached) or anywhere.
    if flags & 0x01 != 0 {
        g = g.lda(bytes.near(g.lda_or_packed()));
    }
    if flags & 0x02 != 0 {
        g = g.ldb(bytes.near(g.ldb_or_packed()));
    }
    if flags & 0x04 != 0 {
        g = g.ldc(bytes.near(g.ldc_or_packed()));
    }
    if flags & 0x08 != 0 {
        g = g.stride_a(bytes.near(g.stride_a_or_packed()));
    }
    if flags & 0x10 != 0 {
        g = g.stride_b(bytes.near(g.stride_b_or_packed()));
    }
    if flags & 0x20 != 0 {
        g = g.stride_c(bytes.near(g.stride_c_or_packed()));
    }
    g
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let g = decode(&mut bytes);

    // The getters: the override, or the packed value (strides saturate instead of overflowing).
    let [(lda, sa), (ldb, sb), (ldc, sc)] = model_layout(&g);
    assert_eq!(
        (g.lda_or_packed(), g.ldb_or_packed(), g.ldc_or_packed()),
        (lda, ldb, ldc),
        "{g:?}"
    );
    assert_eq!(
        (
            g.stride_a_or_packed(),
            g.stride_b_or_packed(),
            g.stride_c_or_packed()
        ),
        (sa, sb, sc),
        "{g:?}"
    );

    // required_lens matches the model, value for value or error for error.
    let lens = outcome(g.required_lens());
    assert_eq!(lens, model_required(&g), "required_lens {g:?}");
    if is_empty(&g) {
        assert_eq!(lens, Ok((0, 0, 0)), "empty call {g:?}");
    }
    if let Ok((a, b, _)) = lens {
        if !reads_ab(&g) {
            assert_eq!((a, b), (0, 0), "A/B not referenced but required: {g:?}");
        }
    }

    // Buffer lengths: near the required ones (when they exist) or anywhere.
    let want = lens.unwrap_or((0, 0, 0));
    let (la, lb, lc) = (bytes.near(want.0), bytes.near(want.1), bytes.near(want.2));

    let r = validate(&g, la, lb, lc);
    assert_eq!(
        r,
        model_validate(&g, la, lb, lc),
        "validate {g:?} ({la}, {lb}, {lc})"
    );
    // Pure: the same answer twice; precision and beta play no part in it.
    assert_eq!(
        r,
        validate(&g, la, lb, lc),
        "validate is not deterministic: {g:?}"
    );
    let other = g.precision(precision(bytes.u8())).beta(bytes.scalar());
    assert_eq!(
        r,
        validate(&other, la, lb, lc),
        "precision/beta changed validate: {g:?}"
    );

    if r.is_ok() {
        // An accepted call has its lengths, and fits the kernels' 32-bit sizes and counts.
        let (na, nb, nc) = lens.expect("validate accepted a call whose required_lens fails");
        assert!(g.m <= MAX_DIM && g.n <= MAX_DIM && g.k <= MAX_DIM, "{g:?}");
        assert!(g.batch as u64 <= MAX_BATCH, "{g:?}");
        assert!(
            lda >= shape_a(&g).1 && ldb >= shape_b(&g).1 && ldc >= g.n,
            "{g:?}"
        );
        // Longer buffers are accepted too.
        assert_eq!(
            validate(&g, usize::MAX, usize::MAX, usize::MAX),
            Ok(()),
            "{g:?}"
        );
        if !is_empty(&g) {
            assert!(la >= na && lb >= nb && lc >= nc, "{g:?} ({la}, {lb}, {lc})");
            // C items never overlap: item z + 1 starts after item z ends.
            if g.batch > 1 {
                assert!(sc as u128 >= item_span(g.m, g.n, ldc), "{g:?}");
            }
            // The required lengths are exact: they pass, one element less names the buffer.
            assert_eq!(validate(&g, na, nb, nc), Ok(()), "{g:?}");
            assert!(nc > 0, "a call with output needs C: {g:?}");
            for (i, what) in ["a", "b", "c"].into_iter().enumerate() {
                let mut l = [na, nb, nc];
                if l[i] == 0 {
                    continue;
                }
                l[i] -= 1;
                assert_eq!(validate(&g, l[0], l[1], l[2]), Err(what), "{g:?}");
            }
        }
    }
});
