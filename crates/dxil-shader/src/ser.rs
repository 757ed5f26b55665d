//! Serializers for the module's typed ids, which carry no serde support of their own: an id
//! serializes as its number.

use dxil_module::{FuncId, GlobalId, MdId, TypeId};
use serde::Serializer;

pub(crate) fn md<S: Serializer>(id: &MdId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(id.0)
}

pub(crate) fn opt_md<S: Serializer>(id: &Option<MdId>, s: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => s.serialize_some(&id.0),
        None => s.serialize_none(),
    }
}

pub(crate) fn opt_func<S: Serializer>(id: &Option<FuncId>, s: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => s.serialize_some(&id.0),
        None => s.serialize_none(),
    }
}

pub(crate) fn global<S: Serializer>(id: &GlobalId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(id.0)
}

pub(crate) fn opt_type<S: Serializer>(id: &Option<TypeId>, s: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => s.serialize_some(&id.0),
        None => s.serialize_none(),
    }
}
