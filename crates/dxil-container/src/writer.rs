//! Container assembly: header, offset table, parts, digest.
//!
//! DXC's container writer adds no padding between parts: each part writer pads its own payload
//! (signatures from validator 1.7 on, PSV0 and the program parts always), and the container
//! writer refuses a size that is not a multiple of 4 except for a final `PRIV`, unless the
//! validator version is below 1.7. [`write_container`] assembles parts exactly as given;
//! [`ContainerBuilder`] also enforces DXC's rule.

use serde::Serialize;

use crate::container::{HEADER_SIZE, MAX_CONTAINER_SIZE, PART_HEADER_SIZE};
use crate::hash::{self, BYPASS_DIGEST, DIGEST_OFFSET, PREVIEW_DIGEST};
use crate::read::PutLe;
use crate::{Error, ErrorKind, FourCC, Result, ValidatorVersion};

/// What to store in the header's digest field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DigestMode {
    /// The retail hash, as a validator stores it after a successful validation.
    Retail,
    /// All zero (unsigned).
    Zero,
    /// Sixteen 0x01 bytes.
    Bypass,
    /// Sixteen 0x02 bytes.
    Preview,
    /// These bytes, as given.
    Keep([u8; 16]),
}

/// Stores the digest `mode` asks for in a complete container (bytes 4..20).
pub fn set_digest(container: &mut [u8], mode: DigestMode) -> Result<()> {
    let digest = match mode {
        DigestMode::Retail => hash::container_digest(container),
        DigestMode::Zero => [0; 16],
        DigestMode::Bypass => BYPASS_DIGEST,
        DigestMode::Preview => PREVIEW_DIGEST,
        DigestMode::Keep(d) => d,
    };
    let len = container.len();
    let slot = container
        .get_mut(DIGEST_OFFSET..DIGEST_OFFSET + 16)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Truncated,
                len,
                None,
                "container is shorter than its header",
            )
        })?;
    slot.copy_from_slice(&digest);
    Ok(())
}

/// Assembles a container from parts in the given order, with no padding added, and stores the
/// digest. Fails only if the result would exceed the format's 2 GiB limit.
pub fn write_container<B: AsRef<[u8]>>(
    parts: &[(FourCC, B)],
    digest: DigestMode,
) -> Result<Vec<u8>> {
    let table = parts.len().checked_mul(4);
    let payloads = parts.iter().try_fold(0usize, |acc, (_, p)| {
        acc.checked_add(PART_HEADER_SIZE)?
            .checked_add(p.as_ref().len())
    });
    let total = table
        .zip(payloads)
        .and_then(|(t, p)| HEADER_SIZE.checked_add(t)?.checked_add(p))
        .filter(|&t| t <= MAX_CONTAINER_SIZE as usize)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Limit,
                0,
                None,
                format!(
                    "{} parts do not fit the container's 2 GiB size limit",
                    parts.len()
                ),
            )
        })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&FourCC::DXBC.0);
    out.extend_from_slice(&[0; 16]);
    out.put_u16(1);
    out.put_u16(0);
    // `total` was checked against the 2 GiB limit above, so these fit in u32.
    out.put_u32(total as u32);
    out.put_u32(parts.len() as u32);
    let mut offset = HEADER_SIZE + parts.len() * 4;
    for (_, p) in parts {
        out.put_u32(offset as u32);
        offset += PART_HEADER_SIZE + p.as_ref().len();
    }
    for (fourcc, p) in parts {
        let p = p.as_ref();
        out.extend_from_slice(&fourcc.0);
        out.put_u32(p.len() as u32);
        out.extend_from_slice(p);
    }
    debug_assert_eq!(out.len(), total);
    set_digest(&mut out, digest)?;
    Ok(out)
}

/// Collects parts and assembles a container, enforcing DXC's part rules: every part size a
/// multiple of 4 (unless the validator version is below 1.7), except a `PRIV` part, which must
/// come last.
#[derive(Debug, Clone, Default)]
pub struct ContainerBuilder {
    parts: Vec<(FourCC, Vec<u8>)>,
    allow_unaligned: bool,
}

impl ContainerBuilder {
    /// An empty builder requiring aligned parts.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder following the rules of `validator` (unaligned parts allowed before 1.7).
    pub fn for_validator(validator: ValidatorVersion) -> Self {
        ContainerBuilder {
            parts: Vec::new(),
            allow_unaligned: !validator.aligns_signature_parts(),
        }
    }

    /// Appends a part.
    pub fn add_part(&mut self, fourcc: FourCC, payload: impl Into<Vec<u8>>) -> &mut Self {
        self.parts.push((fourcc, payload.into()));
        self
    }

    /// The parts added so far.
    pub fn parts(&self) -> &[(FourCC, Vec<u8>)] {
        &self.parts
    }

    /// Checks the part rules and assembles the container.
    pub fn finish(&self, digest: DigestMode) -> Result<Vec<u8>> {
        for (i, (fourcc, payload)) in self.parts.iter().enumerate() {
            let last = i + 1 == self.parts.len();
            if *fourcc == FourCC::PRIV {
                if !last {
                    return Err(rule(format!("PRIV is part {i} but must be the last part")));
                }
            } else if !payload.len().is_multiple_of(4) && !self.allow_unaligned {
                return Err(rule(format!(
                    "part {i} ({fourcc}) has {} bytes, not a multiple of 4",
                    payload.len()
                )));
            }
        }
        write_container(&self.parts, digest)
    }
}

#[cold]
fn rule(message: String) -> Error {
    Error::new(ErrorKind::Invalid, 0, None, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Container, DigestStatus};

    #[test]
    fn assembles_and_reads_back() {
        let parts = [
            (FourCC::SFI0, vec![0u8; 8]),
            (FourCC::ISG1, vec![0, 0, 0, 0, 8, 0, 0, 0]),
        ];
        for (mode, status) in [
            (DigestMode::Retail, DigestStatus::Signed),
            (DigestMode::Zero, DigestStatus::Unsigned),
            (DigestMode::Bypass, DigestStatus::Bypass),
            (DigestMode::Preview, DigestStatus::Preview),
        ] {
            let bytes = write_container(&parts, mode).unwrap();
            assert_eq!(bytes.len(), 32 + 8 + 16 + 16);
            let c = Container::parse(&bytes).unwrap();
            assert!(c.problems().is_empty());
            assert_eq!(c.parts().len(), 2);
            assert_eq!(c.parts()[1].fourcc, FourCC::ISG1);
            assert_eq!(c.parts()[1].data_offset, 56 + 8);
            assert_eq!(c.digest_status(), status);
        }
        let keep = write_container(&parts, DigestMode::Keep([7; 16])).unwrap();
        assert_eq!(&keep[4..20], &[7; 16]);
    }

    #[test]
    fn empty_container() {
        let bytes = write_container::<Vec<u8>>(&[], DigestMode::Retail).unwrap();
        assert_eq!(bytes.len(), 32);
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.digest_status(), DigestStatus::Signed);
    }

    #[test]
    fn builder_enforces_dxc_rules() {
        let mut b = ContainerBuilder::new();
        b.add_part(FourCC::ISG1, vec![0u8; 9]);
        assert_eq!(
            b.finish(DigestMode::Zero).unwrap_err().kind(),
            ErrorKind::Invalid
        );
        let mut b = ContainerBuilder::for_validator(ValidatorVersion::new(1, 6));
        b.add_part(FourCC::ISG1, vec![0u8; 9]);
        assert!(b.finish(DigestMode::Zero).is_ok());
        let mut b = ContainerBuilder::new();
        b.add_part(FourCC::PRIV, vec![1u8; 3]);
        assert!(b.finish(DigestMode::Zero).is_ok());
        b.add_part(FourCC::DXIL, vec![0u8; 4]);
        assert!(b.finish(DigestMode::Zero).is_err());
    }
}
