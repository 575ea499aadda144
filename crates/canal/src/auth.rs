//! Canal's password scramble ("scramble411", MySQL 4.1 style), shared by
//! the server that checks it and the client that computes it.

use sha1::{Digest, Sha1};

/// `SHA1(password) XOR SHA1(seed ‖ SHA1(SHA1(password)))`, as Canal's Java
/// (`SecurityUtil.scramble411`) and Go clients compute it.
pub fn scramble411(password: &[u8], seed: &[u8]) -> [u8; 20] {
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(seed);
    h.update(stage2);
    let mask = h.finalize();
    let mut out = [0u8; 20];
    for (i, o) in out.iter_mut().enumerate() {
        *o = stage1[i] ^ mask[i];
    }
    out
}
