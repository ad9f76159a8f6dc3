//! Warp level: the MMA kinds each mainloop is generic over and the shared → register fragment
//! loads that feed them.
//!
//! - `mma_sync` (device code): `mma.sync.m16n8k16` kinds (f16/bf16 inputs, f32 or f16
//!   accumulation) and their `ldmatrix` fragment loads, at the offsets of [`mma_sync_layout`]
//!   (plain arithmetic, tested on the host);
//! - [`mma_sync_tf32`]: `mma.sync.m16n8k8` TF32 fragment loads (`ldmatrix`; for an r-contiguous
//!   operand word loads, or an M-major A's row pairs, permuted: plain arithmetic, tested on the
//!   host), rounded to nearest;
//! - `wgmma` (sm_90a): `wgmma` kinds (f16, bf16, tf32) and the issue of one k-tile from
//!   shared-memory descriptors;
//! - [`wgmma_register_a`]: an M-major TF32 A loaded into registers for `wgmma` (its row
//!   permutation is plain arithmetic, tested on the host).

#[cfg(target_arch = "nvptx64")]
pub mod mma_sync;
pub mod mma_sync_layout;
pub mod mma_sync_tf32;
#[cfg(target_feature = "sm_90a")]
pub mod wgmma;
pub mod wgmma_register_a;
