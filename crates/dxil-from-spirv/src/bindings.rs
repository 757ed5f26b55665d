//! Vulkan (set, binding) → D3D12 (space, register).
//!
//! The default is Godot's arithmetic: everything in space 0, register
//! `set · 10⁸ + binding · 10⁵`, which leaves 10⁵ registers for the elements of each binding's
//! array; push constants become root constants at [`PUSH_CONSTANT_REGISTER`]. A map given in
//! the options (a callback, or JSON on the command line) overrides any binding it names.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};

/// Register step per descriptor set in the default mapping.
pub const SET_MULTIPLIER: u64 = 100_000_000;
/// Register step per binding in the default mapping.
pub const BINDING_MULTIPLIER: u64 = 100_000;
/// The register of the push-constant buffer in the default mapping (in space 0): past every
/// register a set below 42 can reach.
pub const PUSH_CONSTANT_REGISTER: u32 = 4_200_000_000;

/// D3D12 register classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegisterClass {
    Srv,
    Uav,
    Cbv,
    Sampler,
}

impl RegisterClass {
    pub fn letter(self) -> char {
        match self {
            RegisterClass::Srv => 't',
            RegisterClass::Uav => 'u',
            RegisterClass::Cbv => 'b',
            RegisterClass::Sampler => 's',
        }
    }
}

/// What a descriptor is, as the SPIR-V declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DescriptorKind {
    StorageBuffer,
    UniformBuffer,
    PushConstants,
    SampledImage,
    StorageImage,
    UniformTexelBuffer,
    StorageTexelBuffer,
    Sampler,
    /// The image half of a combined image-sampler.
    CombinedImage,
    /// The sampler half of a combined image-sampler.
    CombinedSampler,
    /// A ray tracing acceleration structure (an SRV).
    AccelerationStructure,
}

/// A binding to place.
#[derive(Clone, Debug, Serialize)]
pub struct BindingRequest {
    /// The descriptor set and binding (`u32::MAX` for push constants).
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    /// The class the translator chose from the type, decorations and use.
    pub class: RegisterClass,
    /// Descriptors in the binding (`u32::MAX` for a runtime array).
    pub count: u32,
    pub name: Option<String>,
    /// 0 for the first variable of this set, binding and class; n for the n-th alias (another
    /// variable bound to the same descriptors with another type).
    pub alias: u32,
}

/// Where a binding goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindingTarget {
    pub space: u32,
    pub register: u32,
    /// A class to use instead of the translator's choice: only SRV → UAV is allowed (a UAV
    /// can always stand in for a read-only buffer or image).
    #[serde(default)]
    pub class: Option<RegisterClass>,
}

/// A binding map callback: `None` falls back to the default mapping.
pub type BindingMapFn = dyn Fn(&BindingRequest) -> Option<BindingTarget> + Send + Sync;

/// How bindings become registers.
#[derive(Clone, Default)]
pub enum BindingMap {
    /// Godot's arithmetic ([`default_target`]).
    #[default]
    Default,
    /// A callback consulted first.
    Callback(Arc<BindingMapFn>),
    /// A fixed table (e.g. from JSON), consulted first.
    Table(Vec<MapEntry>),
    /// The inverse of `dxil to-spirv`'s convention (and of DXC's `-fvk-{b,t,u,s}-shift 0 100
    /// 200 300`): set = space, binding = register + 0 (b), 100 (t), 200 (u) or 300 (s).
    Shifted,
}

impl std::fmt::Debug for BindingMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindingMap::Default => f.write_str("Default"),
            BindingMap::Callback(_) => f.write_str("Callback(..)"),
            BindingMap::Table(t) => f.debug_tuple("Table").field(t).finish(),
            BindingMap::Shifted => f.write_str("Shifted"),
        }
    }
}

/// One entry of a binding table: `{"set": 0, "binding": 2, "space": 1, "register": 5}`;
/// push constants are named with `"push_constants": true` instead of set and binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapEntry {
    #[serde(default)]
    pub set: u32,
    #[serde(default)]
    pub binding: u32,
    #[serde(default)]
    pub push_constants: bool,
    pub space: u32,
    pub register: u32,
    #[serde(default)]
    pub class: Option<RegisterClass>,
}

impl BindingMap {
    /// Parses a JSON table: a list of [`MapEntry`].
    pub fn from_json(text: &str) -> Result<BindingMap> {
        let entries: Vec<MapEntry> = serde_json::from_str(text)
            .map_err(|e| Error::new(ErrorKind::Binding, format!("binding map JSON: {e}")))?;
        Ok(BindingMap::Table(entries))
    }

    pub fn resolve(&self, req: &BindingRequest) -> Result<BindingTarget> {
        let found = match self {
            BindingMap::Default => None,
            BindingMap::Shifted => Some(shifted_target(req)?),
            BindingMap::Callback(f) => f(req),
            BindingMap::Table(t) => t
                .iter()
                .find(|e| {
                    if req.kind == DescriptorKind::PushConstants {
                        e.push_constants
                    } else {
                        !e.push_constants && e.set == req.set && e.binding == req.binding
                    }
                })
                .map(|e| BindingTarget {
                    space: e.space,
                    register: e.register,
                    class: e.class,
                }),
        };
        let t = match found {
            Some(t) => t,
            None => default_target(req)?,
        };
        if let Some(c) = t.class
            && c != req.class
            && !(req.class == RegisterClass::Srv
                && c == RegisterClass::Uav
                && req.kind != DescriptorKind::CombinedImage
                && req.kind != DescriptorKind::SampledImage
                && req.kind != DescriptorKind::UniformTexelBuffer)
        {
            return Err(Error::new(
                ErrorKind::Binding,
                format!(
                    "set {} binding {}: the map asks for class {c:?}, but a {:?} needs {:?}",
                    req.set, req.binding, req.kind, req.class
                ),
            ));
        }
        if req.count != u32::MAX
            && u64::from(t.register) + u64::from(req.count.max(1)) - 1 > u64::from(u32::MAX)
        {
            return Err(Error::new(
                ErrorKind::Binding,
                format!(
                    "set {} binding {}: registers {}..+{} overflow",
                    req.set, req.binding, t.register, req.count
                ),
            ));
        }
        Ok(t)
    }
}

/// Space step of the n-th alias of a binding in the default mappings: aliases are the same
/// descriptors seen with another type, and D3D12 wants a register range per type.
pub const ALIAS_SPACE_STEP: u32 = 100_000;

fn alias_space(req: &BindingRequest, space: u32) -> Result<u32> {
    req.alias
        .checked_mul(ALIAS_SPACE_STEP)
        .and_then(|a| a.checked_add(space))
        .filter(|&s| s < dxil_rootsig::RESERVED_REGISTER_SPACE_START)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Binding,
                format!("set {} binding {}: too many aliases", req.set, req.binding),
            )
        })
}

/// [`BindingMap::Shifted`].
pub fn shifted_target(req: &BindingRequest) -> Result<BindingTarget> {
    if req.kind == DescriptorKind::PushConstants {
        return default_target(req);
    }
    let class = match req.binding / 100 {
        0 => RegisterClass::Cbv,
        1 => RegisterClass::Srv,
        2 => RegisterClass::Uav,
        3 => RegisterClass::Sampler,
        _ => {
            return Err(Error::new(
                ErrorKind::Binding,
                format!(
                    "set {} binding {}: bindings of the shifted convention are below 400",
                    req.set, req.binding
                ),
            ));
        }
    };
    Ok(BindingTarget {
        space: alias_space(req, req.set)?,
        register: req.binding % 100,
        class: Some(class),
    })
}

/// Godot's arithmetic: space 0, register `set · 10⁸ + binding · 10⁵` (sets 0..=41; a larger
/// set is space `set`, register `binding · 10⁵`). A runtime array
/// (unbounded) would run into every register after it, so it gets a space of its own,
/// `1 + set · 1000 + binding`, from register 0. The n-th alias of a binding (another variable
/// on the same descriptors, of another type) goes `n ·` [`ALIAS_SPACE_STEP`] spaces further.
pub fn default_target(req: &BindingRequest) -> Result<BindingTarget> {
    if req.kind == DescriptorKind::PushConstants {
        return Ok(BindingTarget {
            space: 0,
            register: PUSH_CONSTANT_REGISTER,
            class: None,
        });
    }
    if req.count == u32::MAX {
        let space = 1 + u64::from(req.set) * 1000 + u64::from(req.binding);
        if req.binding >= 1000 || space >= u64::from(dxil_rootsig::RESERVED_REGISTER_SPACE_START) {
            return Err(Error::new(
                ErrorKind::Binding,
                format!(
                    "set {} binding {}: no space for a runtime array in the default mapping; give a binding map",
                    req.set, req.binding
                ),
            ));
        }
        return Ok(BindingTarget {
            space: alias_space(req, space as u32)?,
            register: 0,
            class: None,
        });
    }
    if req.binding as u64 * BINDING_MULTIPLIER >= SET_MULTIPLIER
        || (req.count != u32::MAX && u64::from(req.count) > BINDING_MULTIPLIER)
    {
        return Err(Error::new(
            ErrorKind::Binding,
            format!(
                "set {} binding {} (count {}) does not fit the default register arithmetic \
                 (bindings below 1000, arrays up to 100000); give a binding map",
                req.set, req.binding, req.count
            ),
        ));
    }
    let reg = u64::from(req.set) * SET_MULTIPLIER + u64::from(req.binding) * BINDING_MULTIPLIER;
    let register = match u32::try_from(reg)
        .ok()
        .filter(|&r| r < PUSH_CONSTANT_REGISTER)
    {
        Some(r) => r,
        None => {
            // Sets past 41 do not fit the arithmetic in one space: such a set is a space of
            // its own (register binding · 10⁵ there).
            return Ok(BindingTarget {
                space: alias_space(req, req.set)?,
                register: req.binding * BINDING_MULTIPLIER as u32,
                class: None,
            });
        }
    };
    Ok(BindingTarget {
        space: alias_space(req, 0)?,
        register,
        class: None,
    })
}

/// A binding as placed, for reflection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BindingInfo {
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    pub class: RegisterClass,
    pub space: u32,
    pub register: u32,
    /// `u32::MAX` for an unbounded array.
    pub count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The root parameter that holds it, and its offset in that descriptor table.
    pub root_parameter: Option<u32>,
    pub table_offset: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(set: u32, binding: u32, count: u32) -> BindingRequest {
        BindingRequest {
            set,
            binding,
            kind: DescriptorKind::StorageBuffer,
            class: RegisterClass::Uav,
            count,
            name: None,
            alias: 0,
        }
    }

    #[test]
    fn godot_arithmetic() {
        let t = default_target(&req(2, 3, 1)).unwrap();
        assert_eq!((t.space, t.register), (0, 200_300_000));
        let t = default_target(&req(41, 999, 1)).unwrap();
        assert_eq!((t.space, t.register), (0, 4_199_900_000));
        // A runtime array: a space of its own.
        let t = default_target(&req(2, 3, u32::MAX)).unwrap();
        assert_eq!((t.space, t.register), (2004, 0));
        // The first alias goes one step further.
        let t = default_target(&BindingRequest {
            alias: 1,
            ..req(2, 3, 1)
        })
        .unwrap();
        assert_eq!((t.space, t.register), (ALIAS_SPACE_STEP, 200_300_000));
    }

    #[test]
    fn large_sets_get_a_space_of_their_own() {
        let t = default_target(&req(62, 3, 1)).unwrap();
        assert_eq!((t.space, t.register), (62, 300_000));
        let t = default_target(&req(2_147_420_894, 0, 1)).unwrap();
        assert_eq!((t.space, t.register), (2_147_420_894, 0));
        // Too large for a space: a clear error.
        assert!(default_target(&req(u32::MAX - 1, 0, 1)).is_err());
        // Bindings past 999 do not fit whatever the set.
        assert!(default_target(&req(62, 1000, 1)).is_err());
    }
}
