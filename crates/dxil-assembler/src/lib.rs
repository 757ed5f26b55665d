//! Assembles a DXIL listing (the LLVM 3.7 text `dxil dis` and DXC's disassembler print) or a
//! [`Module`] into a DXIL container, generating every part that follows from the module the
//! way DXC's container writer does for the module's validator version (`!dx.valver`):
//!
//! | part | from |
//! | --- | --- |
//! | `SFI0` | the shader flags of the entry point (`ShaderFlags::GetFeatureInfo`) |
//! | `ISG1`, `OSG1`, `PSG1` | the entry point's signature metadata ([`signature`] rules) |
//! | `PSV0` | stage properties, resources, signatures, `!dx.viewIdState` ([`psv`] rules) |
//! | `RTS0` | [`AssembleOptions::root_signature`], when given |
//! | `HASH` | MD5 of the bitcode, from validator 1.5 on |
//! | `DXIL` | the program header and the bitcode of the module |
//!
//! The parts come in DXC's order (`SFI0, ISG1, OSG1, [PSG1], PSV0, [RTS0], [STAT], [HASH],
//! DXIL`), and the container digest is the retail hash a validator stores after validating, so
//! for a module that DXC compiled, the container equals DXC's except for the parts that the
//! module cannot give back: the reflection part `STAT`, the debug parts `ILDB` and `ILDN`, a
//! library's `VERS`, and a library's runtime data `RDAT`, which DXC derives from a per-function
//! analysis of the code that is not done here. Those can be passed in
//! ([`AssembleOptions::extra_parts`]) and are placed where DXC puts them. A library without an
//! `RDAT` part is refused unless [`AssembleOptions::allow_library_without_rdat`] is set (such a
//! container holds the module but fails validation).
//!
//! ```
//! let listing = r#"
//! target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
//! target triple = "dxil-ms-dx"
//!
//! define void @main() {
//!   ret void
//! }
//!
//! !dx.version = !{!0}
//! !dx.valver = !{!1}
//! !dx.shaderModel = !{!2}
//! !dx.entryPoints = !{!3}
//!
//! !0 = !{i32 1, i32 0}
//! !1 = !{i32 1, i32 8}
//! !2 = !{!"cs", i32 6, i32 0}
//! !3 = !{void ()* @main, !"main", null, null, !4}
//! !4 = !{i32 4, !5}
//! !5 = !{i32 8, i32 1, i32 1}
//! "#;
//! let container = dxil_assembler::assemble(listing, &Default::default()).unwrap();
//! let c = dxil_container::Container::parse(&container).unwrap();
//! let parts: Vec<String> = c.parts().iter().map(|p| p.fourcc.to_string()).collect();
//! assert_eq!(parts, ["SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"]);
//! assert_eq!(c.digest_status(), dxil_container::DigestStatus::Signed);
//!
//! let e = dxil_assembler::assemble("define void @main() {\n  ret i32 0\n}\n", &Default::default())
//!     .unwrap_err();
//! assert_eq!(e.line_column(), Some((2, 7)));
//! ```
//!
//! Why here and not in `dxil-container`: generating the parts needs the typed DXIL metadata
//! (`dxil-shader`), the bitcode writer (`dxil-module`) and the text parser (`dxil-text`), which
//! the container crate does not depend on.
//!
//! Why hand-written: DXC's container writer is C++ inside the compiler and no crates.io crate
//! derives the signature, PSV0 and feature-info parts from a module; the only way to get them
//! from a crate would be to link DXC itself.
#![forbid(unsafe_code)]

mod error;
pub mod fuzz;
mod layout;
pub mod psv;
pub mod signature;

use dxil_container::{
    Container, ContainerBuilder, FeatureInfo, ShaderKind as ContainerKind, ValidatorVersion,
    compute_hash_part, write_program_part,
};
use dxil_module::{Module, PatchSite, WriteOptions, write_module_with_sites};
use dxil_shader::{DxilModule, ShaderFlags, ShaderKind, TessellatorDomain};

pub use dxil_container::{DigestMode, FourCC};
pub use error::{Error, Result};

use signature::{SignatureContext, SignatureKind, write_signature};

/// What [`assemble`] and [`build_container`] add beyond the module.
#[derive(Clone, Debug)]
pub struct AssembleOptions {
    /// An `RTS0` payload to embed (see [`root_signature_payload`] for reading one from a file).
    pub root_signature: Option<Vec<u8>>,
    /// Parts that cannot be derived from the module (`STAT`, `ILDB`, `ILDN`, `VERS`, `RDAT`,
    /// `PRIV`), each placed where DXC puts it. Other FourCCs are refused.
    pub extra_parts: Vec<(FourCC, Vec<u8>)>,
    /// The container digest: the retail hash by default, as a validator stores it.
    pub digest: DigestMode,
    /// Writes a library without the `RDAT` part DXC would add (the validator rejects such a
    /// container; the module itself is complete).
    pub allow_library_without_rdat: bool,
    /// Options of the bitcode writer (constants to write patchable).
    pub write: WriteOptions,
    /// Puts the `HASH` part right after `DXIL` instead of before it. The validator and the
    /// runtime find parts by their offsets, so the order is free (but for `PRIV`, which stays
    /// last); a container whose specialization constants
    /// are patched in place wants every byte that a patch changes (the value bits in the
    /// bitcode, the `HASH` digest) late, so that the container digest can be resumed from a
    /// state kept over the unchanged bytes before them.
    pub hash_after_program: bool,
}

impl Default for AssembleOptions {
    fn default() -> Self {
        AssembleOptions {
            root_signature: None,
            extra_parts: Vec::new(),
            digest: DigestMode::Retail,
            allow_library_without_rdat: false,
            write: WriteOptions::default(),
            hash_after_program: false,
        }
    }
}

/// Parses a listing and assembles it into a container. Text errors carry line and column
/// ([`Error::line_column`]).
pub fn assemble(text: &str, options: &AssembleOptions) -> Result<Vec<u8>> {
    let module = dxil_text::parse_module(text)?;
    build_container(&module, options)
}

/// Assembles a module into a container.
pub fn build_container(module: &Module, options: &AssembleOptions) -> Result<Vec<u8>> {
    build_container_with_sites(module, options).map(|(c, _)| c)
}

/// Like [`build_container`], also returning where the patchable constants of
/// [`AssembleOptions::write`] were written, as bit offsets from the start of the container.
pub fn build_container_with_sites(
    module: &Module,
    options: &AssembleOptions,
) -> Result<(Vec<u8>, Vec<PatchSite>)> {
    let dxil = DxilModule::for_assembly(module)?;
    let mut sites = Vec::new();
    let parts = parts_of(module, &dxil, options, &mut sites)?;
    let mut b = ContainerBuilder::for_validator(validator_version(&dxil));
    for (fourcc, payload) in parts {
        b.add_part(fourcc, payload);
    }
    let container = b.finish(options.digest)?;
    if !sites.is_empty() {
        let c = Container::parse(&container)?;
        let base = match c.program() {
            Some(Ok(p)) => p.bitcode_byte_offset_in_container as u64,
            _ => return Err(Error::Unsupported("the container has no DXIL part".into())),
        };
        for s in &mut sites {
            s.bit_offset += base * 8;
        }
    }
    Ok((container, sites))
}

/// The validator version whose byte rules apply: 1.0 when `!dx.valver` is absent, and the
/// newest rules for major version 0 (DXC's "latest, not meant for validation", which its
/// version comparison ranks above every 1.x).
fn validator_version(dxil: &DxilModule) -> ValidatorVersion {
    let v = dxil.effective_validator_version();
    if v.major == 0 {
        ValidatorVersion::new(1, u32::MAX)
    } else {
        ValidatorVersion::new(v.major, v.minor)
    }
}

/// Where DXC puts each part (`SerializeDxilContainerForModule`).
const ORDER: [FourCC; 14] = [
    FourCC::SFI0,
    FourCC::ISG1,
    FourCC::OSG1,
    FourCC::PSG1,
    FourCC::PSV0,
    FourCC::VERS,
    FourCC::RDAT,
    FourCC::RTS0,
    FourCC::ILDB,
    FourCC::STAT,
    FourCC::ILDN,
    FourCC::HASH,
    FourCC::DXIL,
    FourCC::PRIV,
];

/// The parts that [`AssembleOptions::extra_parts`] may carry.
pub const EXTRA_PARTS: [FourCC; 6] = [
    FourCC::VERS,
    FourCC::RDAT,
    FourCC::ILDB,
    FourCC::STAT,
    FourCC::ILDN,
    FourCC::PRIV,
];

/// The container's parts in DXC's order, each payload as DXC writes it.
pub fn build_parts(module: &Module, options: &AssembleOptions) -> Result<Vec<(FourCC, Vec<u8>)>> {
    parts_of(
        module,
        &DxilModule::for_assembly(module)?,
        options,
        &mut Vec::new(),
    )
}

fn parts_of(
    module: &Module,
    dxil: &DxilModule,
    options: &AssembleOptions,
    sites: &mut Vec<PatchSite>,
) -> Result<Vec<(FourCC, Vec<u8>)>> {
    let validator = validator_version(dxil);
    let sm = dxil.shader_model;
    let flags = dxil.shader_flags();
    let mut parts: Vec<(FourCC, Vec<u8>)> = Vec::with_capacity(8);

    for (fourcc, payload) in &options.extra_parts {
        if !EXTRA_PARTS.contains(fourcc) {
            return Err(Error::Unsupported(format!(
                "{fourcc} cannot be given as an extra part (the assembler writes it, or DXC never \
                 does); extra parts may be VERS, RDAT, ILDB, STAT, ILDN and PRIV"
            )));
        }
        if parts.iter().any(|(f, _)| f == fourcc) {
            return Err(Error::Unsupported(format!("{fourcc} is given twice")));
        }
        parts.push((*fourcc, payload.clone()));
    }

    parts.push((
        FourCC::SFI0,
        FeatureInfo {
            flags: flags.sfi0_bits(),
        }
        .write(),
    ));

    if sm.is_library() {
        if options.root_signature.is_some() {
            return Err(Error::Unsupported(
                "a library cannot embed a root signature part (its root signatures are \
                 subobjects)"
                    .into(),
            ));
        }
        if !parts.iter().any(|(f, _)| *f == FourCC::RDAT) && !options.allow_library_without_rdat {
            return Err(Error::Unsupported(format!(
                "{} is a library, which needs an RDAT part; generating RDAT is not supported \
                 (pass one as an extra part, or allow a library without it)",
                sm.profile()
            )));
        }
    } else {
        for f in [FourCC::VERS, FourCC::RDAT] {
            if parts.iter().any(|(p, _)| *p == f) {
                return Err(Error::Unsupported(format!(
                    "{f} belongs to libraries, and this is {}",
                    sm.profile()
                )));
            }
        }
        let entry = dxil
            .entry_point()
            .ok_or_else(|| Error::Unsupported(format!("{} has no entry point", sm.profile())))?;
        let p = &entry.properties;
        let domain = match sm.kind {
            ShaderKind::Hull => p.hs_state.map(|h| h.domain),
            ShaderKind::Domain => p.ds_state.map(|d| d.domain),
            _ => None,
        }
        .unwrap_or(TessellatorDomain::Undefined);
        let cx = SignatureContext {
            stage: sm.kind,
            domain,
            validator,
            use_min_precision: !flags.contains(ShaderFlags::USE_NATIVE_LOW_PRECISION),
        };
        let sigs = &entry.signatures;
        parts.push((
            FourCC::ISG1,
            write_signature(&sigs.inputs, SignatureKind::Input, &cx)?,
        ));
        parts.push((
            FourCC::OSG1,
            write_signature(&sigs.outputs, SignatureKind::Output, &cx)?,
        ));
        if !sigs.patch_constant_or_primitive.is_empty() {
            parts.push((
                FourCC::PSG1,
                write_signature(
                    &sigs.patch_constant_or_primitive,
                    SignatureKind::PatchConstOrPrim,
                    &cx,
                )?,
            ));
        }
        parts.push((
            FourCC::PSV0,
            psv::write_psv(module, dxil, entry, validator)?,
        ));
        if let Some(rs) = &options.root_signature {
            check_root_signature(rs)?;
            parts.push((FourCC::RTS0, rs.clone()));
        }
    }

    let written = write_module_with_sites(module, &options.write)?;
    *sites = written.patch_sites;
    let bitcode = written.bitcode;
    if validator.has_usage_masks_and_hash() {
        parts.push((FourCC::HASH, compute_hash_part(&bitcode).to_vec()));
    }
    let dxil_version = sm.dxil_version();
    parts.push((
        FourCC::DXIL,
        write_program_part(
            FourCC::DXIL,
            ContainerKind::from_raw(sm.kind.raw()),
            sm.major,
            sm.minor,
            (dxil_version.major << 8) | dxil_version.minor,
            &bitcode,
        )?,
    ));
    // A stable sort keeps the order in which parts of one kind were added (there is one each).
    parts.sort_by_key(|(f, _)| ORDER.iter().position(|o| o == f).unwrap_or(ORDER.len()));
    if options.hash_after_program
        && let Some(i) = parts.iter().position(|(f, _)| *f == FourCC::HASH)
    {
        let hash = parts.remove(i);
        // PRIV, when present, must stay the last part.
        let at = parts
            .iter()
            .position(|(f, _)| *f == FourCC::DXIL)
            .map_or(parts.len(), |d| d + 1);
        parts.insert(at, hash);
    }
    Ok(parts)
}

fn check_root_signature(payload: &[u8]) -> Result<()> {
    dxil_rootsig::read_rts0(payload)
        .map(|_| ())
        .map_err(|e| Error::RootSignature(e.to_string()))
}

/// The `RTS0` payload in a file's bytes: the `RTS0` part of a container (a root signature
/// blob or a shader that embeds one), or the bytes themselves when they are not a container.
/// Either way the payload must read as a root signature.
pub fn root_signature_payload(bytes: &[u8]) -> Result<Vec<u8>> {
    let payload = if bytes.starts_with(b"DXBC") {
        let c = Container::parse(bytes)?;
        c.root_signature()
            .ok_or_else(|| Error::RootSignature("the container has no RTS0 part".into()))?
    } else {
        bytes
    };
    check_root_signature(payload)?;
    Ok(payload.to_vec())
}
