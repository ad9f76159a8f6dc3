//! Warpgroup MMA (`wgmma`, sm_90a): asynchronous 64×N×K products issued by a warpgroup of four
//! consecutive warps, operands read from shared memory through 64-bit matrix descriptors,
//! accumulators in registers.

use core::arch::asm;

/// Shared-memory matrix descriptor of a K-major tile stored with the 128-byte swizzle TMA writes
/// (rows of 128 bytes, 8-row atoms of 1024 bytes): start address (bits 0–13, in 16 B), leading byte
/// offset 1 (unused for swizzled K-major), stride byte offset 1024 B between 8-row groups
/// (bits 32–45), swizzle mode 1 = 128 B (bits 62–63). `addr` must lie in a 1024-byte-aligned tile,
/// offset along K by a multiple of 32 bytes.
#[inline(always)]
pub const fn desc_k_major_sw128(addr: u32) -> u64 {
    ((addr as u64 & 0x3_ffff) >> 4) | (1u64 << 16) | ((1024u64 >> 4) << 32) | (1u64 << 62)
}

/// Shared-memory matrix descriptor of an MN-major tile stored with the 128-byte swizzle TMA writes
/// for boxes of 64 MN-contiguous 16-bit elements × k rows: swizzle atoms of 64 elements × 8 k-rows
/// (1024 bytes); leading byte offset `lbo` between atoms along MN (one TMA box apart), stride byte
/// offset 1024 B between 8-row groups along k. `addr` must be 1024-byte aligned.
#[inline(always)]
pub const fn desc_mn_major_sw128(addr: u32, lbo: u32) -> u64 {
    ((addr as u64 & 0x3_ffff) >> 4)
        | (((lbo as u64) >> 4) << 16)
        | ((1024u64 >> 4) << 32)
        | (1u64 << 62)
}

/// `wgmma.fence.sync.aligned;` — orders register accesses to accumulators before the next `wgmma`.
///
/// # Safety
/// Warpgroup-convergent.
#[inline(always)]
pub unsafe fn fence() {
    asm!("wgmma.fence.sync.aligned;", options(nostack));
}

/// `wgmma.commit_group.sync.aligned;` — closes the group of `wgmma`s issued since the last commit.
///
/// # Safety
/// Warpgroup-convergent.
#[inline(always)]
pub unsafe fn commit_group() {
    asm!("wgmma.commit_group.sync.aligned;", options(nostack));
}

/// `wgmma.wait_group.sync.aligned N;` — waits until at most `N` committed groups are pending.
///
/// # Safety
/// Warpgroup-convergent.
#[inline(always)]
pub unsafe fn wait_group<const N: u32>() {
    asm!("wgmma.wait_group.sync.aligned {0};", const N, options(nostack));
}

/// `setmaxnreg.inc.sync.aligned.u32 N;` — raises this warpgroup's register allotment to `N`.
///
/// # Safety
/// Warpgroup-convergent; the kernel must be launched with a register cap (`.maxntid` with
/// `.minnctapersm`) and the block's allotments must fit the register file.
#[inline(always)]
pub unsafe fn setmaxnreg_inc<const N: u32>() {
    asm!("setmaxnreg.inc.sync.aligned.u32 {0};", const N, options(nostack));
}

/// `setmaxnreg.dec.sync.aligned.u32 N;` — lowers this warpgroup's register allotment to `N`,
/// releasing registers for the other warpgroups.
///
/// # Safety
/// Warpgroup-convergent; the warpgroup must not need more than `N` registers afterwards.
#[inline(always)]
pub unsafe fn setmaxnreg_dec<const N: u32>() {
    asm!("setmaxnreg.dec.sync.aligned.u32 {0};", const N, options(nostack));
}

/// The `asm!` of a `wgmma.mma_async` with f32 accumulators `$d: [f32; N]`, one positional operand
/// per index of the list (`[0, 1, …, N - 1]`, written in order as PTX's `{d0, …}`), descriptors
/// `$da`/`$db`, the scale-d predicate from `$acc`, the instruction as pieces of one string, then
/// `$tail` (immediates after the two scale immediates) and any extra named operands it uses.
macro_rules! wgmma_asm {
    // A from four registers (`{a0, a1, a2, a3}`: the thread's fragment of a 64×8 tf32 A)
    (
        $d:ident [$i0:literal $(, $i:literal)*], regs $a:expr, $db:expr, $acc:expr,
        [$($instr:literal),+]
    ) => {
        asm!(
            "{{",
            ".reg .pred p;",
            "setp.ne.b32 p, {sd}, 0;",
            concat!(
                $($instr,)+ " {{{", $i0, "}", $(", {", $i, "}",)*
                "}}, {{{a0}, {a1}, {a2}, {a3}}}, {db}, p, 1, 1;"
            ),
            "}}",
            inout(reg32) $d[$i0],
            $(inout(reg32) $d[$i],)*
            a0 = in(reg32) $a[0],
            a1 = in(reg32) $a[1],
            a2 = in(reg32) $a[2],
            a3 = in(reg32) $a[3],
            db = in(reg64) $db,
            sd = in(reg32) $acc as u32,
            options(nostack)
        )
    };
    (
        $d:ident [$i0:literal $(, $i:literal)*], $da:expr, $db:expr, $acc:expr,
        [$($instr:literal),+], $tail:literal $(, $($extra:tt)+)?
    ) => {
        asm!(
            "{{",
            ".reg .pred p;",
            "setp.ne.b32 p, {sd}, 0;",
            concat!(
                $($instr,)+ " {{{", $i0, "}", $(", {", $i, "}",)* "}}, {da}, {db}, p, 1, 1", $tail,
                ";"
            ),
            "}}",
            inout(reg32) $d[$i0],
            $(inout(reg32) $d[$i],)*
            da = in(reg64) $da,
            db = in(reg64) $db,
            sd = in(reg32) $acc as u32,
            $($($extra)+,)?
            options(nostack)
        )
    };
}

/// `wgmma_asm!` of an `m64n256` instruction: 128 accumulators per thread.
macro_rules! wgmma_m64n256_asm {
    ($d:ident, $($rest:tt)+) => {
        wgmma_asm!($d [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127], $($rest)+)
    };
}

/// `wgmma_asm!` of an `m64n192` instruction: 96 accumulators per thread.
macro_rules! wgmma_m64n192_asm {
    ($d:ident, $($rest:tt)+) => {
        wgmma_asm!($d [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95], $($rest)+)
    };
}

/// `wgmma_asm!` of an `m64n144` instruction: 72 accumulators per thread.
macro_rules! wgmma_m64n144_asm {
    ($d:ident, $($rest:tt)+) => {
        wgmma_asm!($d [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71], $($rest)+)
    };
}

/// `wgmma_asm!` of an `m64n128` instruction: 64 accumulators per thread.
macro_rules! wgmma_m64n128_asm {
    ($d:ident, $($rest:tt)+) => {
        wgmma_asm!($d [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63], $($rest)+)
    };
}

/// `wgmma_asm!` of an `m64n64` instruction: 32 accumulators per thread.
macro_rules! wgmma_m64n64_asm {
    ($d:ident, $($rest:tt)+) => {
        wgmma_asm!($d [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31], $($rest)+)
    };
}

/// `wgmma_asm!` of an `m64n32` instruction: 16 accumulators per thread.
macro_rules! wgmma_m64n32_asm {
    ($d:ident, $($rest:tt)+) => {
        wgmma_asm!($d [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], $($rest)+)
    };
}

/// Defines the `wgmma`s of one width `N` (`$n`), each on `d: &mut [f32; $acc]` (`$acc` = N/2
/// accumulators per thread) through the `asm!` macro `$asm`: `$f16` and `$bf16` (A and B from
/// shared memory, either major-ness), `$tf32` (both K-major) and `$tf32_rs` (A from registers).
/// One definition for every width: the widths differ only in `N` and the accumulator list.
macro_rules! wgmma_width {
    ($asm:ident, $n:literal, $acc:literal, $f16:ident, $bf16:ident, $tf32:ident, $tf32_rs:ident) => {
        #[doc = concat!(
            "`wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.f16.f16` — f16 inputs, f32 ",
            "accumulators: `d[64×", $n, "] (+)= A[64×16]·B[16×", $n, "]` with A and B read from ",
            "shared memory through the descriptors (PTX's `imm-trans-a`/`imm-trans-b`: `true` = ",
            "that operand is MN-major in shared memory, `false` = K-major), `d` += when ",
            "`accumulate`, = otherwise. Register `i` (`i < ", $acc, "`) of thread `t` holds row ",
            "`16·(t/32) + (t%32)/4 + 8·((i%4)/2)`, column `8·(i/4) + 2·(t%4) + i%2`.\n\n",
            "# Safety\nWarpgroup-convergent (all 128 threads); the shared tiles must stay ",
            "unchanged until the group is waited for; `d` must not be touched until then except ",
            "by further `wgmma`s."
        )]
        #[inline(always)]
        pub unsafe fn $f16<const TRANS_A: bool, const TRANS_B: bool>(
            d: &mut [f32; $acc],
            desc_a: u64,
            desc_b: u64,
            accumulate: bool,
        ) {
            $asm!(
                d,
                desc_a,
                desc_b,
                accumulate,
                ["wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.f16.f16"],
                ", {ta}, {tb}",
                ta = const TRANS_A as u32,
                tb = const TRANS_B as u32
            );
        }

        #[doc = concat!(
            "`wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16` — bf16 inputs, f32 ",
            "accumulators; as [`", stringify!($f16), "`].\n\n# Safety\nAs [`",
            stringify!($f16), "`]."
        )]
        #[inline(always)]
        pub unsafe fn $bf16<const TRANS_A: bool, const TRANS_B: bool>(
            d: &mut [f32; $acc],
            desc_a: u64,
            desc_b: u64,
            accumulate: bool,
        ) {
            $asm!(
                d,
                desc_a,
                desc_b,
                accumulate,
                ["wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16"],
                ", {ta}, {tb}",
                ta = const TRANS_A as u32,
                tb = const TRANS_B as u32
            );
        }

        #[doc = concat!(
            "`wgmma.mma_async.sync.aligned.m64n", $n, "k8.f32.tf32.tf32` — tf32 inputs (f32 bit ",
            "patterns in shared memory), f32 accumulators: `d[64×", $n, "] (+)= A[64×8]·B[8×", $n,
            "]`, both operands K-major (the tf32 form has no transpose). Register layout as [`",
            stringify!($f16), "`].\n\n# Safety\nAs [`", stringify!($f16), "`]."
        )]
        #[inline(always)]
        pub unsafe fn $tf32(d: &mut [f32; $acc], desc_a: u64, desc_b: u64, accumulate: bool) {
            $asm!(
                d,
                desc_a,
                desc_b,
                accumulate,
                ["wgmma.mma_async.sync.aligned.m64n", $n, "k8.f32.tf32.tf32"],
                ""
            );
        }

        #[doc = concat!(
            "`wgmma.mma_async.sync.aligned.m64n", $n, "k8.f32.tf32.tf32` with A from registers: ",
            "`d[64×", $n, "] (+)= A[64×8]·B[8×", $n, "]`, B K-major in shared memory. Thread `t` ",
            "holds `a = [A(r, c), A(r + 8, c), A(r, c + 4), A(r + 8, c + 4)]` with ",
            "`r = 16·(t/32) + (t%32)/4`, `c = t%4` (f32 bit patterns; `wgmma` reads their TF32 ",
            "part). Accumulator layout as [`", stringify!($f16), "`].\n\n# Safety\nAs [`",
            stringify!($f16), "`]; `a` is read asynchronously too: the compiler keeps its ",
            "registers until the group is waited for (ptxas serializes the `wgmma`s where it ",
            "cannot, and says so)."
        )]
        #[inline(always)]
        pub unsafe fn $tf32_rs(d: &mut [f32; $acc], a: [u32; 4], desc_b: u64, accumulate: bool) {
            $asm!(
                d,
                regs a,
                desc_b,
                accumulate,
                ["wgmma.mma_async.sync.aligned.m64n", $n, "k8.f32.tf32.tf32"]
            );
        }
    };
}

wgmma_width!(
    wgmma_m64n256_asm,
    256,
    128,
    m64n256k16_f32_f16,
    m64n256k16_f32_bf16,
    m64n256k8_f32_tf32,
    m64n256k8_f32_tf32_rs
);
wgmma_width!(
    wgmma_m64n192_asm,
    192,
    96,
    m64n192k16_f32_f16,
    m64n192k16_f32_bf16,
    m64n192k8_f32_tf32,
    m64n192k8_f32_tf32_rs
);
wgmma_width!(
    wgmma_m64n144_asm,
    144,
    72,
    m64n144k16_f32_f16,
    m64n144k16_f32_bf16,
    m64n144k8_f32_tf32,
    m64n144k8_f32_tf32_rs
);
wgmma_width!(
    wgmma_m64n128_asm,
    128,
    64,
    m64n128k16_f32_f16,
    m64n128k16_f32_bf16,
    m64n128k8_f32_tf32,
    m64n128k8_f32_tf32_rs
);
wgmma_width!(
    wgmma_m64n64_asm,
    64,
    32,
    m64n64k16_f32_f16,
    m64n64k16_f32_bf16,
    m64n64k8_f32_tf32,
    m64n64k8_f32_tf32_rs
);
wgmma_width!(
    wgmma_m64n32_asm,
    32,
    16,
    m64n32k16_f32_f16,
    m64n32k16_f32_bf16,
    m64n32k8_f32_tf32,
    m64n32k8_f32_tf32_rs
);
