//! The benchmark [`Shape`]s: one (strided-batched) product and where its operands sit in their
//! buffers ([`Padding`]), the command-line syntax that names them ([`Shape::parse`],
//! [`Shape::parse_list`]) and the preset lists of the criterion bench and `bench_report`
//! ([`presets`]).

use tcgemm::{Elem, Gemm, Precision};

use crate::problem::{Layout, Problem};

pub mod presets;

pub use presets::{
    all_shapes, decode, prefill, sizes, small_k, unaligned, BATCHED, DECODE_LAYERS, DECODE_TOKENS,
    ODD, PREFILL_TOKENS, QUICK, SIZES, SKINNY, SQUARES, TRANSFORMER, VOCAB_TOKENS, VOCAB_WIDTHS,
};

/// A (strided-batched) row-major `m×n×k` product: A stored `m×k` or, with `trans_a`, `k×m`; B
/// stored `k×n` or, with `trans_b`, `n×k` (`nt`: both operands K-major); C stored `m×n`. Packed
/// unless its [`Padding`] says otherwise (longer leading dimensions, views at an offset into
/// their buffers, gaps between batch items).
///
/// ```
/// use tcgemm_testkit::Shape;
/// let s = Shape::parse("1000*64x64x64").unwrap();
/// assert_eq!((s.batch, s.label()), (1000, "1000*64x64x64".to_string()));
/// let odd = Shape::parse("4096:nt+ld1+off1").unwrap();
/// assert_eq!((odd.trans_b, odd.padding.ld, odd.padding.offset), (true, 1, 1));
/// assert_eq!(Shape::parse_list("quick,4096").unwrap().len(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Batch items.
    pub batch: usize,
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// A stored transposed (`k×m`).
    pub trans_a: bool,
    /// B stored transposed (`n×k`).
    pub trans_b: bool,
    /// Where the operands sit in their buffers ([`Padding::PACKED`]: packed).
    pub padding: Padding,
}

/// Where a [`Shape`]'s operands sit in their buffers beyond the packed layout, the same for A, B
/// and C. [`Padding::PACKED`] (all zero, the default) is the packed layout of the standard suites.
///
/// ```
/// use tcgemm_testkit::{Padding, Shape};
/// let s = Shape::new(64, 32, 16).padded(Padding { ld: 1, offset: 3, batch_stride: 0 });
/// let p = s.problem();
/// assert_eq!((p.layout_a().ld, p.layout_b().ld, p.layout_c().ld), (17, 33, 33));
/// assert_eq!((p.offset_a, p.offset_b, p.offset_c), (3, 3, 3));
/// assert_eq!(s.padding.suffix(), "+ld1+off3");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Padding {
    /// Elements added to every operand's packed leading dimension (its stored row length):
    /// `lda = k + ld` for A stored `m×k`, `ldb = n + ld` for B stored `k×n`, `ldc = n + ld`.
    pub ld: usize,
    /// Elements between the start of every operand's buffer and its view: A, B and C each start
    /// `offset` elements into their buffers.
    pub offset: usize,
    /// Elements added to every operand's packed batch stride (stored rows · leading dimension):
    /// a gap of `batch_stride` elements after each batch item.
    pub batch_stride: usize,
}

impl Padding {
    /// No padding: packed operands at the start of their buffers.
    pub const PACKED: Padding = Padding {
        ld: 0,
        offset: 0,
        batch_stride: 0,
    };

    /// Whether this is [`Padding::PACKED`].
    ///
    /// ```
    /// use tcgemm_testkit::Padding;
    /// assert!(Padding::default().is_packed());
    /// assert!(!Padding { offset: 1, ..Padding::PACKED }.is_packed());
    /// ```
    pub fn is_packed(&self) -> bool {
        *self == Padding::PACKED
    }

    /// The label suffix, as [`Shape::parse`] reads it: `+ldP`, `+offO`, `+bsS` for each non-zero
    /// part, in that order; empty when packed.
    ///
    /// ```
    /// use tcgemm_testkit::Padding;
    /// let p = Padding { ld: 1, offset: 0, batch_stride: 3 };
    /// assert_eq!(p.suffix(), "+ld1+bs3");
    /// assert_eq!(Padding::PACKED.suffix(), "");
    /// ```
    pub fn suffix(&self) -> String {
        let mut s = String::new();
        for (key, value) in [
            ("ld", self.ld),
            ("off", self.offset),
            ("bs", self.batch_stride),
        ] {
            if value != 0 {
                s.push_str(&format!("+{key}{value}"));
            }
        }
        s
    }

    /// Reads the `+`-separated items after a shape's sizes and layout (`pads`, without the first
    /// `+`); `whole` is the full text, for messages.
    fn parse(pads: &str, whole: &str) -> Result<Padding, String> {
        let mut padding = Padding::PACKED;
        let mut seen: Vec<String> = Vec::new();
        for item in pads.split('+').map(str::trim) {
            let bad = |why: String| format!("bad padding '+{item}' in '{whole}': {why}");
            if item.contains(':') {
                return Err(bad(
                    "the layout goes before the padding (e.g. 4096:nt+ld1)".into()
                ));
            }
            let digits = item
                .find(|c: char| c.is_ascii_digit())
                .unwrap_or(item.len());
            let (key, value) = item.split_at(digits);
            let key = key.trim().to_ascii_lowercase();
            let slot = match key.as_str() {
                "ld" => &mut padding.ld,
                "off" => &mut padding.offset,
                "bs" => &mut padding.batch_stride,
                _ => return Err(bad("use +ldP, +offO or +bsS".into())),
            };
            *slot = value
                .trim()
                .parse::<usize>()
                .map_err(|e| bad(format!("{e}; use +ldP, +offO or +bsS with a number")))?;
            if seen.contains(&key) {
                return Err(bad(format!("+{key} is given twice")));
            }
            seen.push(key);
        }
        Ok(padding)
    }
}

/// A packed single `m×n×k` product (the presets' building block).
pub(crate) const fn sh(m: usize, n: usize, k: usize) -> Shape {
    Shape {
        batch: 1,
        m,
        n,
        k,
        trans_a: false,
        trans_b: false,
        padding: Padding::PACKED,
    }
}

/// Elements a stored row length (a packed leading dimension) of an aligned shape is a multiple
/// of: 8, i.e. 16 bytes of f16 or bf16 and 32 of f32, so that every leading dimension, batch stride
/// and base address meets the 16-byte alignment TMA kernels need.
pub const ALIGN_ELEMS: usize = 8;

impl Shape {
    /// A single packed `m×n×k` product.
    ///
    /// ```
    /// let s = tcgemm_testkit::Shape::new(3, 5, 7);
    /// assert_eq!((s.batch, s.label()), (1, "3x5x7".to_string()));
    /// ```
    pub const fn new(m: usize, n: usize, k: usize) -> Shape {
        sh(m, n, k)
    }

    /// The same product with operands stored transposed as `trans_a`, `trans_b` say.
    ///
    /// ```
    /// let s = tcgemm_testkit::Shape::new(3, 5, 7).layout(false, true);
    /// assert_eq!(s.label(), "3x5x7:nt");
    /// ```
    pub const fn layout(self, trans_a: bool, trans_b: bool) -> Shape {
        Shape {
            trans_a,
            trans_b,
            ..self
        }
    }

    /// The same product with its operands placed as `padding` says.
    ///
    /// ```
    /// use tcgemm_testkit::{Padding, Shape};
    /// let s = Shape::new(4096, 4096, 4096).padded(Padding { ld: 1, ..Padding::PACKED });
    /// assert_eq!(s.label(), "4096x4096x4096+ld1");
    /// ```
    pub const fn padded(self, padding: Padding) -> Shape {
        Shape { padding, ..self }
    }

    /// FLOPs of one call: `2·m·n·k·batch`.
    ///
    /// ```
    /// assert_eq!(tcgemm_testkit::Shape::new(2, 3, 4).flops(), 48);
    /// ```
    pub fn flops(&self) -> u64 {
        2 * (self.m as u64) * (self.n as u64) * (self.k as u64) * (self.batch as u64)
    }

    /// The layout suffix: empty for `nn`, else `:nt`, `:tn` or `:tt`.
    ///
    /// ```
    /// assert_eq!(tcgemm_testkit::Shape::parse("8:tn").unwrap().layout_suffix(), ":tn");
    /// ```
    pub fn layout_suffix(&self) -> &'static str {
        match (self.trans_a, self.trans_b) {
            (false, false) => "",
            (false, true) => ":nt",
            (true, false) => ":tn",
            (true, true) => ":tt",
        }
    }

    /// `MxNxK`, or `BATCH*MxNxK` when batched (also the criterion benchmark parameter), with the
    /// layout suffix (`:nt`, `:tn`, `:tt`) when an operand is transposed and the padding suffix
    /// ([`Padding::suffix`]) when not packed: what [`Shape::parse`] reads back.
    ///
    /// ```
    /// let s = tcgemm_testkit::Shape::parse("64*512:nt+bs1").unwrap();
    /// assert_eq!(s.label(), "64*512x512x512:nt+bs1");
    /// ```
    pub fn label(&self) -> String {
        let (t, pad) = (self.layout_suffix(), self.padding.suffix());
        if self.batch == 1 {
            format!("{}x{}x{}{t}{pad}", self.m, self.n, self.k)
        } else {
            format!("{}*{}x{}x{}{t}{pad}", self.batch, self.m, self.n, self.k)
        }
    }

    /// The suite of the report this shape belongs to (`squares`, `transformer`, `skinny`, `odd`,
    /// `batched`, `decode`, `unaligned`, `sizes`, `prefill`, `smallk`; `other` for a shape named
    /// on the command line), whatever
    /// its layout. A shape with padding is `unaligned`; a packed one in several presets reports
    /// under the first of these (4095³, also in [`unaligned`], is `odd`).
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// assert_eq!(Shape::parse("4096:nt").unwrap().suite(), "squares");
    /// assert_eq!(Shape::parse("256*128x128x128").unwrap().suite(), "batched");
    /// assert_eq!(Shape::parse("4096+off1").unwrap().suite(), "unaligned");
    /// assert_eq!(Shape::new(1, 128256, 4096).suite(), "decode");
    /// assert_eq!(Shape::new(1, 32001, 4096).suite(), "unaligned");
    /// assert_eq!(Shape::new(3, 5, 7).suite(), "other");
    /// ```
    pub fn suite(&self) -> &'static str {
        presets::suite_of(self)
    }

    /// Whether the report adds f16 → f32 rows for this shape by default: the power-of-two
    /// squares and the `unaligned` suite.
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// assert!(Shape::new(4096, 4096, 4096).reports_f16_f32());
    /// assert!(Shape::parse("2047").unwrap().reports_f16_f32());
    /// assert!(!Shape::new(4096, 11008, 4096).reports_f16_f32());
    /// ```
    pub fn reports_f16_f32(&self) -> bool {
        self.is_pow2_square() || self.suite() == "unaligned"
    }

    /// A packed power-of-two square, `nn`.
    ///
    /// ```
    /// assert!(tcgemm_testkit::Shape::new(1024, 1024, 1024).is_pow2_square());
    /// ```
    pub fn is_pow2_square(&self) -> bool {
        self.batch == 1
            && !self.trans_a
            && !self.trans_b
            && self.padding.is_packed()
            && self.m == self.n
            && self.n == self.k
            && self.m.is_power_of_two()
    }

    /// The same product on aligned storage, the yardstick of an unaligned call: packed, no offset,
    /// and every extent that is a stored row length (so a packed leading dimension) rounded up
    /// to a multiple of [`ALIGN_ELEMS`]: `n` (C's rows, and B's unless transposed), `k` unless A is
    /// stored transposed and B is not, `m` when A is stored transposed. An extent that is only a
    /// row count stays: a decode call keeps its M.
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// let twin = |s: &str| Shape::parse(s).unwrap().aligned_twin().label();
    /// assert_eq!(twin("4095"), "4095x4096x4096");
    /// assert_eq!(twin("1x32001x4096:nt"), "1x32008x4096:nt");
    /// assert_eq!(twin("1001:tn"), "1008x1008x1001:tn");
    /// assert_eq!(twin("64*512:nt+ld1+off1+bs1"), "64*512x512x512:nt");
    /// ```
    pub fn aligned_twin(&self) -> Shape {
        let up = |x: usize| x.div_ceil(ALIGN_ELEMS) * ALIGN_ELEMS;
        let k_is_row_length = !self.trans_a || self.trans_b;
        Shape {
            m: if self.trans_a { up(self.m) } else { self.m },
            n: up(self.n),
            k: if k_is_row_length { up(self.k) } else { self.k },
            padding: Padding::PACKED,
            ..*self
        }
    }

    /// Whether the shape is its own [`Shape::aligned_twin`]: packed, every stored row length a
    /// multiple of [`ALIGN_ELEMS`]. Padding that keeps alignment (`+ld8`) is still not packed.
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// assert!(Shape::new(1, 4096, 4096).is_aligned_packed());
    /// assert!(!Shape::parse("4096+off1").unwrap().is_aligned_packed());
    /// assert!(!Shape::parse("4096+ld8").unwrap().is_aligned_packed());
    /// ```
    pub fn is_aligned_packed(&self) -> bool {
        self.aligned_twin() == *self
    }

    /// The call as a test [`Problem`]: `alpha = 1`, `beta = 0`, default precision, leading
    /// dimensions, batch strides and view offsets as the [`Padding`] says (packed ones left
    /// unset). Its layouts are the storage every consumer reads: buffers, the reference, cuBLAS.
    ///
    /// ```
    /// let s = tcgemm_testkit::Shape::parse("3*64x32x16:nt+ld2+off1+bs5").unwrap();
    /// let b = s.problem().layout_b();
    /// assert_eq!((b.rows, b.ld, b.stride, b.offset), (32, 18, 32 * 18 + 5, 1));
    /// ```
    pub fn problem(&self) -> Problem {
        let Padding {
            ld,
            offset,
            batch_stride,
        } = self.padding;
        let mut p = Problem::new(self.m, self.n, self.k)
            .trans(self.trans_a, self.trans_b)
            .batched(self.batch);
        if ld != 0 {
            p = p.pad_ld(ld, ld, ld);
        }
        if batch_stride != 0 {
            p = p.pad_strides(batch_stride, batch_stride, batch_stride);
        }
        p.offsets(offset, offset, offset)
    }

    /// The tcgemm call ([`Problem::gemm`] of [`Shape::problem`]): `alpha = 1`, `beta = 0`, the
    /// transposes, leading dimensions and batch strides of the shape, `precision`. It takes the
    /// operands' views, which start [`Padding::offset`] elements into their buffers.
    ///
    /// ```
    /// let s = tcgemm_testkit::Shape::parse("4096+ld1").unwrap();
    /// assert_eq!(s.gemm(tcgemm::Precision::Default).lda, Some(4097));
    /// ```
    pub fn gemm(&self, precision: Precision) -> Gemm {
        self.problem().precision(precision).gemm()
    }

    /// Elements of the buffers of A, B and C (all batch items): the view's offset plus its span,
    /// from the first element of item 0 to the last element of the last item.
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// assert_eq!(Shape::new(2, 3, 4).lens(), (8, 12, 6));
    /// // C: 1 element of offset, then rows of 3 elements 4 apart
    /// assert_eq!(Shape::parse("2x3x4+ld1+off1").unwrap().lens().2, 1 + 4 + 3);
    /// ```
    pub fn lens(&self) -> (usize, usize, usize) {
        let p = self.problem();
        let len = |l: Layout| l.offset + l.span();
        (len(p.layout_a()), len(p.layout_b()), len(p.layout_c()))
    }

    /// Bytes of one (A, B, C) set of buffers.
    ///
    /// ```
    /// use tcgemm::Elem;
    /// // (8 + 12) f16 inputs, 6 f32 outputs
    /// assert_eq!(tcgemm_testkit::Shape::new(2, 3, 4).set_bytes(Elem::F16, Elem::F32), 64);
    /// ```
    pub fn set_bytes(&self, input: Elem, output: Elem) -> usize {
        let (a, b, c) = self.lens();
        (a + b) * input.bytes() as usize + c * output.bytes() as usize
    }

    /// The largest buffer's bytes in the widest element type (4 bytes), when every buffer's
    /// length fits `usize` ([`Shape::parse`] refuses a shape whose lengths overflow).
    fn checked_max_bytes(&self) -> Option<usize> {
        let len = |rows: usize, cols: usize| -> Option<usize> {
            let pad = self.padding;
            let ld = cols.checked_add(pad.ld)?;
            let stride = rows.checked_mul(ld)?.checked_add(pad.batch_stride)?;
            let last_item = (self.batch - 1).checked_mul(stride)?;
            let last_row = (rows - 1).checked_mul(ld)?;
            last_item
                .checked_add(last_row)?
                .checked_add(cols)?
                .checked_add(pad.offset)?
                .checked_mul(4)
        };
        let (m, n, k) = (self.m, self.n, self.k);
        let a = if self.trans_a { (k, m) } else { (m, k) };
        let b = if self.trans_b { (n, k) } else { (k, n) };
        let lens = [len(a.0, a.1)?, len(b.0, b.1)?, len(self.m, self.n)?];
        lens.into_iter().max()
    }

    /// Parses a shape: `N` (N×N×N), `MxNxK` or `BATCH*MxNxK` (`x`, `X` or `×` between the
    /// sizes); then optionally a layout `:nn`, `:nt`, `:tn` or `:tt` (`t`: that operand stored
    /// transposed); then optionally [`Padding`], each part at most once, in any order:
    /// - `+ldP`: every leading dimension P elements longer than packed (`lda = k + P` for A
    ///   stored `m×k`, `ldb = n + P`, `ldc = n + P`);
    /// - `+offO`: A, B and C each start O elements into their buffers (sub-views);
    /// - `+bsS`: S more elements between batch items than packed (batched shapes only).
    ///
    /// ```
    /// use tcgemm_testkit::{Padding, Shape};
    /// let s = Shape::parse("64*512x512x512:nt+ld1+off2+bs3").unwrap();
    /// assert_eq!((s.batch, s.m, s.trans_a, s.trans_b), (64, 512, false, true));
    /// assert_eq!(s.padding, Padding { ld: 1, offset: 2, batch_stride: 3 });
    /// assert_eq!(Shape::parse(&s.label()), Ok(s));
    /// assert_eq!(Shape::parse("4096+off1+ld1"), Shape::parse("4096x4096x4096+ld1+off1"));
    /// assert!(Shape::parse("4096+ld").is_err());
    /// assert!(Shape::parse("4096+ld1:nt").is_err()); // the layout goes first
    /// assert!(Shape::parse("4096+bs1").is_err()); // one batch item has no stride
    /// ```
    pub fn parse(s: &str) -> Result<Shape, String> {
        let text = s.trim();
        let (sizes, padding) = match text.split_once('+') {
            Some((sizes, pads)) => (sizes, Padding::parse(pads, text)?),
            None => (text, Padding::PACKED),
        };
        let shape = parse_packed(sizes.trim())?.padded(padding);
        if padding.batch_stride != 0 && shape.batch == 1 {
            return Err(format!(
                "bad padding in '{text}': +bs needs a batch (BATCH*MxNxK)"
            ));
        }
        if shape.checked_max_bytes().is_none() {
            return Err(format!(
                "bad size '{text}': its buffers do not fit in memory"
            ));
        }
        Ok(shape)
    }

    /// Parses a comma list of shapes ([`Shape::parse`]) and presets (`squares`, `transformer`,
    /// `skinny`, `odd`, `batched`, `decode`, `unaligned`, `quick`, `all`), keeping the first of
    /// any duplicates.
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// let list = Shape::parse_list("odd, 1921x1023x517, 4096+ld1").unwrap();
    /// assert_eq!(list.len(), 3);
    /// assert!(Shape::parse_list("squares,nonsense").is_err());
    /// ```
    pub fn parse_list(list: &str) -> Result<Vec<Shape>, String> {
        let mut v: Vec<Shape> = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let add = match presets::preset(item) {
                Some(shapes) => shapes,
                None => vec![Shape::parse(item)?],
            };
            for s in add {
                if !v.contains(&s) {
                    v.push(s);
                }
            }
        }
        Ok(v)
    }
}

/// The packed part of [`Shape::parse`]: sizes and layout.
fn parse_packed(s: &str) -> Result<Shape, String> {
    let (s, trans_a, trans_b) = match s.rsplit_once(':') {
        Some((rest, "nn")) => (rest, false, false),
        Some((rest, "nt")) => (rest, false, true),
        Some((rest, "tn")) => (rest, true, false),
        Some((rest, "tt")) => (rest, true, true),
        Some((_, l)) => return Err(format!("bad layout ':{l}' in '{s}': use nn, nt, tn or tt")),
        None => (s, false, false),
    };
    let (batch, dims) = match s.split_once('*') {
        Some((b, rest)) => (
            b.trim()
                .parse::<usize>()
                .map_err(|e| format!("bad batch in '{s}': {e}"))?,
            rest,
        ),
        None => (1, s),
    };
    let d: Vec<usize> = dims
        .split(['x', 'X', '×'])
        .map(|d| d.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("bad size '{s}': {e}"))?;
    let (m, n, k) = match *d.as_slice() {
        [n] => (n, n, n),
        [m, n, k] => (m, n, k),
        _ => return Err(format!("bad size '{s}': use N, MxNxK or BATCH*MxNxK")),
    };
    if batch == 0 || m == 0 || n == 0 || k == 0 {
        return Err(format!("bad size '{s}': every extent must be positive"));
    }
    Ok(Shape {
        batch,
        ..sh(m, n, k).layout(trans_a, trans_b)
    })
}
