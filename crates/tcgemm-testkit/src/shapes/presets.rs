//! The preset shape lists (`--shapes squares`, ...) and the suite each shape reports under.

use super::{sh, Padding, Shape};

/// Squares.
pub const SQUARES: [Shape; 4] = [
    sh(1024, 1024, 1024),
    sh(2048, 2048, 2048),
    sh(4096, 4096, 4096),
    sh(8192, 8192, 8192),
];

/// Transformer-like: M (tokens) ∈ {16, 128, 4096} × (N, K) ∈ {(4096, 4096), (11008, 4096), (4096, 11008)}.
pub const TRANSFORMER: [Shape; 9] = [
    sh(16, 4096, 4096),
    sh(16, 11008, 4096),
    sh(16, 4096, 11008),
    sh(128, 4096, 4096),
    sh(128, 11008, 4096),
    sh(128, 4096, 11008),
    sh(4096, 4096, 4096),
    sh(4096, 11008, 4096),
    sh(4096, 4096, 11008),
];

/// One small dimension.
pub const SKINNY: [Shape; 3] = [sh(64, 8192, 8192), sh(8192, 64, 8192), sh(8192, 8192, 64)];

/// Tokens (M) of the LLM-decode suite.
pub const DECODE_TOKENS: [usize; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// `(N, K)` of the LLM-decode suite's layers: an 8B-class model's attention (4096, 4096), MLP
/// up/gate (14336, 4096) and down (4096, 14336); a 70B-class model's MLP up/gate (28672, 8192);
/// the vocabulary projection (128256, 4096).
pub const DECODE_LAYERS: [(usize, usize); 5] = [
    (4096, 4096),
    (14336, 4096),
    (4096, 14336),
    (28672, 8192),
    (128256, 4096),
];

/// LLM decode: every [`DECODE_TOKENS`] × [`DECODE_LAYERS`], the weights (B) stored `k×n` (`nn`)
/// and `n×k` (`nt`). Not in [`all_shapes`]: ask for it (`--shapes decode`). The products also in
/// another suite (16×4096×4096, 128×4096×4096) report under that suite.
///
/// ```
/// assert_eq!(tcgemm_testkit::shapes::decode().len(), 90);
/// ```
pub fn decode() -> Vec<Shape> {
    let layers = DECODE_LAYERS.iter();
    nn_and_nt(layers.flat_map(|&(n, k)| DECODE_TOKENS.map(|m| sh(m, n, k))))
}

/// Each of `shapes` as given (`nn`) and with B stored `n×k` (`nt`), in turn.
fn nn_and_nt(shapes: impl IntoIterator<Item = Shape>) -> Vec<Shape> {
    shapes
        .into_iter()
        .flat_map(|s| [s, s.layout(false, true)])
        .collect()
}

/// Sizes that are not multiples of any tile.
pub const ODD: [Shape; 2] = [sh(1921, 1023, 517), sh(4095, 4095, 4095)];

/// Many small products in one strided-batched call (attention-like: per-head products of 64 to
/// 2048 rows, head dimensions 64 and 128, `nt` where the second operand is stored as keys are).
pub const BATCHED: [Shape; 5] = [
    batch(1000, sh(64, 64, 64)),
    batch(512, sh(128, 128, 64)),
    batch(256, sh(128, 128, 128).layout(false, true)),
    batch(64, sh(512, 512, 64)),
    batch(64, sh(2048, 2048, 128).layout(false, true)),
];

/// `shape` as `items` products of one strided-batched call.
const fn batch(items: usize, shape: Shape) -> Shape {
    Shape {
        batch: items,
        ..shape
    }
}

/// The `--quick` shapes of the report.
pub const QUICK: [Shape; 2] = [sh(4096, 4096, 4096), sh(8192, 8192, 8192)];

/// The full shape list of the bench and the report, in order (4096³ appears once, with the squares).
///
/// ```
/// assert_eq!(tcgemm_testkit::all_shapes().len(), 22);
/// ```
pub fn all_shapes() -> Vec<Shape> {
    let mut v: Vec<Shape> = Vec::new();
    for s in SQUARES
        .iter()
        .chain(&TRANSFORMER)
        .chain(&SKINNY)
        .chain(&ODD)
        .chain(&BATCHED)
    {
        if !v.contains(s) {
            v.push(*s);
        }
    }
    v
}

/// Square sizes of the `sizes` suite (issue 15): 512 to 8192, with the non-powers of two where
/// tiles fill the GPU's waves unevenly (1536² is 96 tiles of 128×192 on 132 SMs, 3000 has rows off
/// 32-byte sectors).
pub const SIZES: [usize; 14] = [
    512, 768, 1024, 1280, 1536, 1792, 2048, 2560, 3000, 3072, 4096, 5120, 6144, 8192,
];

/// Squares of every [`SIZES`] entry, `nn` and `nt`. Not in [`all_shapes`]: ask for it (`--shapes
/// sizes`); the power-of-two squares report under `squares`.
///
/// ```
/// assert_eq!(tcgemm_testkit::shapes::sizes().len(), 28);
/// ```
pub fn sizes() -> Vec<Shape> {
    nn_and_nt(SIZES.map(|n| sh(n, n, n)))
}

/// Tokens (M) of the `prefill` suite.
pub const PREFILL_TOKENS: [usize; 4] = [2048, 4096, 8192, 16384];

/// Prefill of the decode suite's transformer layers ([`DECODE_LAYERS`] but the vocabulary
/// projection): every [`PREFILL_TOKENS`] × layer, the weights stored `k×n` (`nn`) and `n×k`
/// (`nt`). Not in [`all_shapes`]: ask for it (`--shapes prefill`).
///
/// ```
/// assert_eq!(tcgemm_testkit::shapes::prefill().len(), 32);
/// ```
pub fn prefill() -> Vec<Shape> {
    let layers = DECODE_LAYERS.iter().filter(|&&(n, _)| n < 100_000);
    nn_and_nt(layers.flat_map(|&(n, k)| PREFILL_TOKENS.map(|m| sh(m, n, k))))
}

/// Products of small k (rank-64 and rank-128 updates), `nn` and `nt`: bound by writing C. Not in
/// [`all_shapes`]: ask for it (`--shapes smallk`); 8192²×64, also in [`SKINNY`], reports there.
///
/// ```
/// assert_eq!(tcgemm_testkit::shapes::small_k().len(), 12);
/// ```
pub fn small_k() -> Vec<Shape> {
    nn_and_nt([
        sh(4096, 4096, 64),
        sh(4096, 4096, 128),
        sh(8192, 8192, 64),
        sh(8192, 8192, 128),
        sh(16384, 16384, 64),
        sh(16384, 4096, 128),
    ])
}

/// Odd vocabulary widths (N) of the `unaligned` suite: a 32000-token vocabulary plus a padding
/// token, and GPT-2's 50257.
pub const VOCAB_WIDTHS: [usize; 2] = [32001, 50257];

/// Tokens (M) of the `unaligned` suite's vocabulary projections: decode (1, 16, 128) and a
/// prefill (2048).
pub const VOCAB_TOKENS: [usize; 4] = [1, 16, 128, 2048];

/// K of the vocabulary projections: an 8B-class model's hidden size.
const VOCAB_K: usize = 4096;

/// Calls whose operands are not 16-byte aligned, issue #18's suite (34 shapes). Not in
/// [`all_shapes`]: ask for it (`--shapes unaligned`). In order:
/// - odd squares 1001, 2047, 4095, 4097, 8191 (`nn`), and 4097 `nt` and `tn`;
/// - leading dimensions one element longer than packed (`+ld1`) on 4096³ (`nn`, `nt`, `tn`) and
///   on a 2048×8192×4096 prefill; and 4096³`+ld8`, a pad that keeps 16-byte alignment (the control);
/// - every operand a view one element into its buffer (`+off1`) on 4096³ (`nn`, `nt`, `tn`); and
///   4096³`+off8` (the control);
/// - batch strides one element longer than packed (`+bs1`) on 64 × 512³ (`nn`, `nt`);
/// - vocabulary projections: N ∈ [`VOCAB_WIDTHS`] × M ∈ [`VOCAB_TOKENS`], K = 4096, the weights
///   stored `k×n` (`nn`) and `n×k` (`nt`).
///
/// 4095³ (`nn`) reports under the `odd` suite, where it also is.
///
/// ```
/// let shapes = tcgemm_testkit::shapes::unaligned();
/// assert_eq!(shapes.len(), 34);
/// assert!(shapes.iter().all(|s| !s.is_aligned_packed()));
/// ```
pub fn unaligned() -> Vec<Shape> {
    let pad = |ld, offset, batch_stride| Padding {
        ld,
        offset,
        batch_stride,
    };
    let square = |n| sh(n, n, n);
    let (nn, nt, tn) = ((false, false), (false, true), (true, false));
    let mut v = Vec::new();
    for n in [1001, 2047, 4095, 4097, 8191] {
        v.push(square(n));
    }
    for (ta, tb) in [nt, tn] {
        v.push(square(4097).layout(ta, tb));
    }
    for (ta, tb) in [nn, nt, tn] {
        v.push(square(4096).layout(ta, tb).padded(pad(1, 0, 0)));
    }
    v.push(sh(2048, 8192, 4096).padded(pad(1, 0, 0)));
    v.push(square(4096).padded(pad(8, 0, 0)));
    for (ta, tb) in [nn, nt, tn] {
        v.push(square(4096).layout(ta, tb).padded(pad(0, 1, 0)));
    }
    v.push(square(4096).padded(pad(0, 8, 0)));
    let batched = Shape {
        batch: 64,
        ..square(512)
    };
    for (ta, tb) in [nn, nt] {
        v.push(batched.layout(ta, tb).padded(pad(0, 0, 1)));
    }
    for n in VOCAB_WIDTHS {
        for m in VOCAB_TOKENS {
            for (ta, tb) in [nn, nt] {
                v.push(sh(m, n, VOCAB_K).layout(ta, tb));
            }
        }
    }
    v
}

/// The shapes of the preset `name` (case-insensitive), or `None` when it names none.
pub(crate) fn preset(name: &str) -> Option<Vec<Shape>> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "squares" => SQUARES.to_vec(),
        "transformer" => TRANSFORMER.to_vec(),
        "skinny" => SKINNY.to_vec(),
        "odd" => ODD.to_vec(),
        "batched" => BATCHED.to_vec(),
        "decode" => decode(),
        "unaligned" => unaligned(),
        "sizes" => sizes(),
        "prefill" => prefill(),
        "smallk" => small_k(),
        "quick" => QUICK.to_vec(),
        "all" => all_shapes(),
        _ => return None,
    })
}

/// [`Shape::suite`]: `unaligned` for any padding; else the first suite whose list holds the shape
/// in any layout (squares, transformer, skinny, odd, batched, decode, unaligned, sizes, prefill,
/// smallk); else `other`.
pub(crate) fn suite_of(shape: &Shape) -> &'static str {
    if !shape.padding.is_packed() {
        return "unaligned";
    }
    let plain = shape.layout(false, false);
    let suites: [(&'static str, &[Shape]); 5] = [
        ("squares", &SQUARES),
        ("transformer", &TRANSFORMER),
        ("skinny", &SKINNY),
        ("odd", &ODD),
        ("batched", &BATCHED),
    ];
    let holds = |list: &[Shape]| list.iter().any(|s| s.layout(false, false) == plain);
    if let Some((name, _)) = suites.iter().find(|(_, list)| holds(list)) {
        return name;
    }
    let decode = plain.batch == 1
        && DECODE_LAYERS.contains(&(plain.n, plain.k))
        && DECODE_TOKENS.contains(&plain.m);
    let in_list = |list: Vec<Shape>| list.iter().any(|s| s.layout(false, false) == plain);
    if decode {
        "decode"
    } else if in_list(unaligned()) {
        "unaligned"
    } else if in_list(sizes()) {
        "sizes"
    } else if in_list(prefill()) {
        "prefill"
    } else if in_list(small_k()) {
        "smallk"
    } else {
        "other"
    }
}
