//! The one-pass reader for lines Conch wrote itself.
//!
//! Conch writes the envelope first and `type` fourth, so once `type` is read
//! the rest of the object can be handed straight to the body's struct: one
//! scan of the line, no buffering. Anything else (fields in another order, a
//! body that doesn't fit its struct, a line that isn't JSON) fails here and is
//! read again by the careful two-pass reader in `line.rs`.

use std::fmt;

use serde::de::value::{MapAccessDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use crate::body::Body;
use crate::event::Event;

pub(crate) struct FastEvent(pub Event);

#[derive(Default)]
struct Envelope {
    seq: Option<u64>,
    id: Option<String>,
    at: Option<String>,
}

impl Envelope {
    /// Takes an envelope field; false when `key` isn't one.
    fn take<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "seq" => self.seq = Some(map.next_value()?),
            "id" => self.id = Some(map.next_value()?),
            "at" => self.at = Some(map.next_value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The rest of the object after `type`, minus envelope fields.
struct Rest<'a, A> {
    map: &'a mut A,
    envelope: &'a mut Envelope,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Rest<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        loop {
            let Some(key) = self.map.next_key::<Key<'de>>()? else {
                return Ok(None);
            };
            if self.envelope.take(&key, self.map)? {
                continue;
            }
            return seed.deserialize(StrDeserializer::new(&key)).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        self.map.next_value_seed(seed)
    }
}

fn body<'de, T, A>(
    map: &mut A,
    envelope: &mut Envelope,
    wrap: fn(T) -> Body,
) -> Result<Body, A::Error>
where
    T: Deserialize<'de>,
    A: MapAccess<'de>,
{
    let rest = Rest { map, envelope };
    T::deserialize(MapAccessDeserializer::new(rest)).map(wrap)
}

/// A field name, borrowed from the line when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl std::ops::Deref for Key<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = FastEvent;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastEvent, A::Error> {
        let mut envelope = Envelope::default();
        let kind: String = loop {
            let Some(key) = map.next_key::<Key<'de>>()? else {
                return Err(de::Error::missing_field("type"));
            };
            if &*key == "type" {
                break map.next_value()?;
            }
            if !envelope.take(&key, &mut map)? {
                return Err(de::Error::custom("a body field comes before type"));
            }
        };
        let e = &mut envelope;
        let body = match kind.as_str() {
            "chat.created" => body(&mut map, e, Body::ChatCreated)?,
            "message" => body(&mut map, e, Body::Message)?,
            "turn.started" => body(&mut map, e, Body::TurnStarted)?,
            "reply" => body(&mut map, e, Body::Reply)?,
            "tool.called" => body(&mut map, e, Body::ToolCalled)?,
            "tool.finished" => body(&mut map, e, Body::ToolFinished)?,
            "turn.ended" => body(&mut map, e, Body::TurnEnded)?,
            "mode.changed" => body(&mut map, e, Body::ModeChanged)?,
            "permission.requested" => body(&mut map, e, Body::PermissionRequested)?,
            "permission.answered" => body(&mut map, e, Body::PermissionAnswered)?,
            "permission.ended" => body(&mut map, e, Body::PermissionEnded)?,
            "taint" => body(&mut map, e, Body::Taint)?,
            "skill.used" => body(&mut map, e, Body::SkillUsed)?,
            "skill.hold.ended" => body(&mut map, e, Body::SkillHoldEnded)?,
            "compacted" => body(&mut map, e, Body::Compacted)?,
            "artifact" => body(&mut map, e, Body::Artifact)?,
            "review.judged" => body(&mut map, e, Body::ReviewJudged)?,
            "memory" => body(&mut map, e, Body::Memory)?,
            "memories.used" => body(&mut map, e, Body::MemoriesUsed)?,
            "chat.renamed" => body(&mut map, e, Body::ChatRenamed)?,
            "file.kept" => body(&mut map, e, Body::FileKept)?,
            "cost" => body(&mut map, e, Body::Cost)?,
            "files.left" => body(&mut map, e, Body::FilesLeft)?,
            "files.restored" => body(&mut map, e, Body::FilesRestored)?,
            "chat.archived" => body(&mut map, e, Body::ChatArchived)?,
            "model.changed" => body(&mut map, e, Body::ModelChanged)?,
            "grant.revoked" => body(&mut map, e, Body::GrantRevoked)?,
            _ => {
                while map.next_key::<IgnoredAny>()?.is_some() {
                    map.next_value::<IgnoredAny>()?;
                }
                Body::Unknown { kind }
            }
        };
        match (envelope.seq, envelope.id, envelope.at) {
            (Some(seq), Some(id), Some(at)) => Ok(FastEvent(Event { seq, id, at, body })),
            _ => Err(de::Error::custom("the envelope is incomplete")),
        }
    }
}

impl<'de> Deserialize<'de> for FastEvent {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EventVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_conch_writes_in_one_pass() {
        let line = br#"{"seq":2,"id":"i","at":"t","type":"message","from":"owner","text":"yo"}"#;
        let e = serde_json::from_slice::<FastEvent>(line).map(|f| f.0);
        assert!(
            matches!(
                e,
                Ok(Event {
                    seq: 2,
                    body: Body::Message(_),
                    ..
                })
            ),
            "{e:?}"
        );
    }

    #[test]
    fn hands_other_orders_to_the_careful_reader() {
        let line = br#"{"text":"yo","type":"message","from":"owner","at":"t","id":"i","seq":2}"#;
        assert!(serde_json::from_slice::<FastEvent>(line).is_err());
    }
}
