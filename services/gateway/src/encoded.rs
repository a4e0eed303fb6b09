//! What a watcher is sent, written around the bytes the engine stored: each event's and
//! view's protobuf encoding goes out to every watcher as it was appended, inside the
//! WatchMatchResponse (and Play's MatchMessage) fields written here, never decoded and
//! encoded again per watcher. Decoding what these write gives exactly the message their
//! fields describe (the tests below hold the two equal). `crate::served` routes
//! WatchMatch and Play to handlers that send them.

use api::v1;
use prost::Message;
use prost::bytes::{Buf, BufMut, Bytes};
use prost::encoding::{self, DecodeContext, WireType};

/// What `prost::Message` asks beyond encoding, for the messages here, which the gateway
/// only ever encodes (clients decode the generated types): decoding skips every field,
/// clearing makes the default.
macro_rules! encoded_only {
    () => {
        fn merge_field(
            &mut self,
            tag: u32,
            wire_type: WireType,
            buf: &mut impl Buf,
            ctx: DecodeContext,
        ) -> Result<(), prost::DecodeError> {
            encoding::skip_field(wire_type, tag, buf, ctx)
        }

        fn clear(&mut self) {
            *self = Self::default();
        }
    };
}

/// WatchMatchResponse's fields, by number (colosseum.proto).
mod field {
    pub const VERSION: u32 = 1;
    pub const INDEX: u32 = 2;
    pub const PRIVATE: u32 = 3;
    pub const EVENT: u32 = 4;
    pub const TRACEPARENT: u32 = 5;
    pub const VIEW: u32 = 6;
    pub const TAG: u32 = 7;
    /// GetViewResponse.version, written after the stored view's own (the last wins).
    pub const VIEW_VERSION: u32 = 1;
    /// GetViewResponse.deadline_in_ms.
    pub const VIEW_DEADLINE_IN_MS: u32 = 6;
    /// GetViewResponse.deadline_at_ms.
    pub const VIEW_DEADLINE_AT_MS: u32 = 11;
    /// Event.match_ended.
    pub const EVENT_MATCH_ENDED: u32 = 3;
    /// PlayResponse.match_message.
    pub const PLAY_MATCH_MESSAGE: u32 = 1;
    /// MatchMessage.match_id.
    pub const MATCH_ID: u32 = 1;
    /// MatchMessage.message.
    pub const MATCH_MESSAGE: u32 = 2;
}

/// Where a message stands in its viewer's numbering, and what it carries along.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Head {
    /// The viewer's version.
    pub version: u64,
    /// The message's index within it.
    pub index: u32,
    /// Whether only the viewer's seat receives it.
    pub private: bool,
    /// The step's trace context.
    pub traceparent: String,
    /// The entry's tag.
    pub tag: u64,
}

/// A stored view as one watcher is sent it: the stored bytes, then its version in the
/// viewer's numbering and the time to its deadline from now (fields written after the
/// stored ones take their place when decoded).
#[derive(Clone, Debug)]
pub struct View {
    stored: Bytes,
    /// The viewer's version, when the stored one is not it.
    version: Option<u64>,
    deadline_in_ms: Option<u64>,
}

impl View {
    /// The view of `stored` (a GetViewResponse as the engine stored it) at the viewer's
    /// `version`, its time to the deadline counted from now; `None` if it does not parse.
    pub fn of(stored: &[u8], version: u64) -> Option<View> {
        let (mut stored_version, mut at_ms, mut in_ms) = (0, None, false);
        scan(stored, |tag, varint| match tag {
            field::VIEW_VERSION => stored_version = varint.unwrap_or_default(),
            field::VIEW_DEADLINE_AT_MS => at_ms = varint,
            field::VIEW_DEADLINE_IN_MS => in_ms = true,
            _ => {}
        })
        .ok()?;
        let deadline_in_ms = at_ms.map(service_kit::time::ms_until);
        // The engine stores each view at its viewer's own version, without a time to the
        // deadline: the version is written again only where the two differ, so a view is
        // as long as prost would make it.
        let version = (version != stored_version).then_some(version);
        if in_ms {
            // A time to the deadline stored (no engine stores one): it cannot be taken
            // back by writing after it, so this view is encoded again without it.
            let mut v = v1::GetViewResponse::decode(stored).ok()?;
            v.deadline_in_ms = None;
            return Some(View { stored: v.encode_to_vec().into(), version, deadline_in_ms });
        }
        Some(View { stored: Bytes::copy_from_slice(stored), version, deadline_in_ms })
    }

    fn encoded_len(&self) -> usize {
        let field = |tag, v: Option<u64>| {
            v.map_or(0, |v| encoding::key_len(tag) + encoding::encoded_len_varint(v))
        };
        self.stored.len()
            + field(field::VIEW_VERSION, self.version)
            + field(field::VIEW_DEADLINE_IN_MS, self.deadline_in_ms)
    }

    fn encode(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.stored);
        for (tag, v) in
            [(field::VIEW_VERSION, self.version), (field::VIEW_DEADLINE_IN_MS, self.deadline_in_ms)]
        {
            if let Some(v) = v {
                encoding::encode_key(tag, WireType::Varint, buf);
                encoding::encode_varint(v, buf);
            }
        }
    }
}

/// One WatchMatch message, as [`crate::watch`] makes it.
#[derive(Clone, Debug)]
pub enum WatchMessage {
    /// An event, its encoding as stored.
    Event {
        /// Its position.
        head: Head,
        /// The stored `colosseum.v1.Event`.
        event: Bytes,
    },
    /// The viewer's view.
    View {
        /// Its position.
        head: Head,
        /// The view.
        view: View,
    },
    /// Any other message (a resync, a presence), made whole.
    Whole(Box<v1::WatchMatchResponse>),
}

impl Default for WatchMessage {
    fn default() -> Self {
        WatchMessage::Whole(Box::default())
    }
}

impl WatchMessage {
    /// The message's version, index and tag in the viewer's numbering.
    pub fn at(&self) -> (u64, u32, u64) {
        match self {
            WatchMessage::Event { head, .. } | WatchMessage::View { head, .. } => {
                (head.version, head.index, head.tag)
            }
            WatchMessage::Whole(m) => (m.version, m.index, m.tag),
        }
    }

    /// The message decoded, as a client reads it (for the gateway's own readers and
    /// tests; what goes out on the wire is [`Message::encode`]'s bytes).
    pub fn decoded(&self) -> v1::WatchMatchResponse {
        match self {
            WatchMessage::Whole(m) => (**m).clone(),
            WatchMessage::Event { .. } | WatchMessage::View { .. } => {
                v1::WatchMatchResponse::decode(self.encode_to_vec().as_slice()).unwrap_or_default()
            }
        }
    }
}

/// What a message carries after its head: a stored event, or a view.
#[derive(Clone, Copy)]
enum Body<'a> {
    Event(&'a [u8]),
    View(&'a View),
}

impl Body<'_> {
    fn tag(self) -> u32 {
        match self {
            Body::Event(_) => field::EVENT,
            Body::View(_) => field::VIEW,
        }
    }

    fn len(self) -> usize {
        match self {
            Body::Event(e) => e.len(),
            Body::View(v) => v.encoded_len(),
        }
    }

    fn encoded_len(self) -> usize {
        let len = self.len();
        encoding::key_len(self.tag()) + encoding::encoded_len_varint(len as u64) + len
    }

    fn encode(self, buf: &mut impl BufMut) {
        encoding::encode_key(self.tag(), WireType::LengthDelimited, buf);
        encoding::encode_varint(self.len() as u64, buf);
        match self {
            Body::Event(e) => buf.put_slice(e),
            Body::View(v) => v.encode(buf),
        }
    }
}

impl Head {
    /// The length of the head's fields and `body`, defaults left out as prost leaves them.
    fn encoded_len(&self, body: Body<'_>) -> usize {
        let mut n = body.encoded_len();
        if self.version != 0 {
            n += encoding::uint64::encoded_len(field::VERSION, &self.version);
        }
        if self.index != 0 {
            n += encoding::uint32::encoded_len(field::INDEX, &self.index);
        }
        if self.private {
            n += encoding::bool::encoded_len(field::PRIVATE, &self.private);
        }
        if !self.traceparent.is_empty() {
            n += encoding::string::encoded_len(field::TRACEPARENT, &self.traceparent);
        }
        if self.tag != 0 {
            n += encoding::uint64::encoded_len(field::TAG, &self.tag);
        }
        n
    }

    /// Writes the head's fields and `body` in field-number order, as prost does.
    fn encode(&self, body: Body<'_>, buf: &mut impl BufMut) {
        if self.version != 0 {
            encoding::uint64::encode(field::VERSION, &self.version, buf);
        }
        if self.index != 0 {
            encoding::uint32::encode(field::INDEX, &self.index, buf);
        }
        if self.private {
            encoding::bool::encode(field::PRIVATE, &self.private, buf);
        }
        if body.tag() < field::TRACEPARENT {
            body.encode(buf);
        }
        if !self.traceparent.is_empty() {
            encoding::string::encode(field::TRACEPARENT, &self.traceparent, buf);
        }
        if body.tag() > field::TRACEPARENT {
            body.encode(buf);
        }
        if self.tag != 0 {
            encoding::uint64::encode(field::TAG, &self.tag, buf);
        }
    }
}

impl Message for WatchMessage {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match self {
            WatchMessage::Whole(m) => m.encode_raw(buf),
            WatchMessage::Event { head, event } => head.encode(Body::Event(event), buf),
            WatchMessage::View { head, view } => head.encode(Body::View(view), buf),
        }
    }

    encoded_only!();

    fn encoded_len(&self) -> usize {
        match self {
            WatchMessage::Whole(m) => m.encoded_len(),
            WatchMessage::Event { head, event } => head.encoded_len(Body::Event(event)),
            WatchMessage::View { head, view } => head.encoded_len(Body::View(view)),
        }
    }
}

/// One Play message: a watched match's message, written around its pre-encoded bytes, or
/// any other made whole.
#[derive(Clone, Debug)]
pub enum PlayMessage {
    /// A message of the watched match `match_id`.
    Match {
        /// The match id.
        match_id: String,
        /// The message.
        message: WatchMessage,
    },
    /// An answer, an error, a watch's end.
    Whole(Box<v1::PlayResponse>),
}

impl Default for PlayMessage {
    fn default() -> Self {
        PlayMessage::Whole(Box::default())
    }
}

impl PlayMessage {
    /// The length of the MatchMessage inside.
    fn match_len(match_id: &str, message: &WatchMessage) -> usize {
        let id = if match_id.is_empty() {
            0
        } else {
            encoding::key_len(field::MATCH_ID)
                + encoding::encoded_len_varint(match_id.len() as u64)
                + match_id.len()
        };
        id + encoding::message::encoded_len(field::MATCH_MESSAGE, message)
    }
}

impl PlayMessage {
    /// The message decoded, as a client reads it (see [`WatchMessage::decoded`]).
    pub fn decoded(&self) -> v1::PlayResponse {
        match self {
            PlayMessage::Whole(m) => (**m).clone(),
            PlayMessage::Match { match_id, message } => v1::PlayResponse {
                kind: Some(v1::play_response::Kind::MatchMessage(v1::MatchMessage {
                    match_id: match_id.clone(),
                    message: Some(message.decoded()),
                })),
            },
        }
    }
}

impl Message for PlayMessage {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match self {
            PlayMessage::Whole(m) => m.encode_raw(buf),
            PlayMessage::Match { match_id, message } => {
                let len = Self::match_len(match_id, message);
                encoding::encode_key(field::PLAY_MATCH_MESSAGE, WireType::LengthDelimited, buf);
                encoding::encode_varint(len as u64, buf);
                if !match_id.is_empty() {
                    encoding::string::encode(field::MATCH_ID, match_id, buf);
                }
                encoding::message::encode(field::MATCH_MESSAGE, message, buf);
            }
        }
    }

    encoded_only!();

    fn encoded_len(&self) -> usize {
        match self {
            PlayMessage::Whole(m) => m.encoded_len(),
            PlayMessage::Match { match_id, message } => {
                let len = Self::match_len(match_id, message);
                encoding::key_len(field::PLAY_MATCH_MESSAGE)
                    + encoding::encoded_len_varint(len as u64)
                    + len
            }
        }
    }
}

/// Whether `event` (a stored `colosseum.v1.Event`) parses at its top level, and whether
/// it is the match's end; `None` if it does not parse (it is not sent).
pub fn event_ends_match(event: &[u8]) -> Option<bool> {
    let mut ended = false;
    scan(event, |tag, _| ended |= tag == field::EVENT_MATCH_ENDED).ok()?;
    Some(ended)
}

/// Walks the top-level fields of a protobuf message, calling `f` with each field's number
/// and, for a varint, its value.
fn scan(mut buf: &[u8], mut f: impl FnMut(u32, Option<u64>)) -> Result<(), prost::DecodeError> {
    while buf.has_remaining() {
        let (tag, wire_type) = encoding::decode_key(&mut buf)?;
        if wire_type == WireType::Varint {
            f(tag, Some(encoding::decode_varint(&mut buf)?));
        } else {
            f(tag, None);
            encoding::skip_field(wire_type, tag, &mut buf, DecodeContext::default())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: v1::event::Kind) -> Vec<u8> {
        v1::Event { kind: Some(kind) }.encode_to_vec()
    }

    fn ended() -> v1::event::Kind {
        v1::event::Kind::MatchEnded(v1::MatchEnded { winner: Some(1), ..Default::default() })
    }

    fn heads() -> Vec<Head> {
        let trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".to_string();
        vec![
            Head::default(),
            Head { version: 3, index: 1, private: true, traceparent: trace.clone(), tag: 9 },
            Head { version: 1 << 40, index: 70_000, private: false, traceparent: trace, tag: 0 },
        ]
    }

    #[test]
    fn an_event_is_sent_byte_for_byte_as_prost_would_encode_it() {
        let stored = event(ended());
        for head in heads() {
            let m = WatchMessage::Event { head: head.clone(), event: stored.clone().into() };
            let expected = v1::WatchMatchResponse {
                version: head.version,
                index: head.index,
                private: head.private,
                event: Some(v1::Event::decode(stored.as_slice()).unwrap()),
                traceparent: head.traceparent.clone(),
                tag: head.tag,
                ..Default::default()
            };
            assert_eq!(m.encode_to_vec(), expected.encode_to_vec(), "{head:?}");
            assert_eq!(m.encoded_len(), expected.encoded_len());
            assert_eq!(m.decoded(), expected);
            let play = PlayMessage::Match { match_id: "m-1".into(), message: m };
            let expected = v1::PlayResponse {
                kind: Some(v1::play_response::Kind::MatchMessage(v1::MatchMessage {
                    match_id: "m-1".into(),
                    message: Some(expected),
                })),
            };
            assert_eq!(play.encode_to_vec(), expected.encode_to_vec());
            assert_eq!(play.encoded_len(), expected.encoded_len());
        }
    }

    fn stored_view(version: u64, deadline_at_ms: Option<u64>) -> v1::GetViewResponse {
        v1::GetViewResponse {
            version,
            seat: Some(1),
            to_move: vec![0, 1],
            deadline_at_ms,
            player_ids: vec!["a".into(), "b".into()],
            game: "gops".into(),
            legal_moves: vec![v1::Move {
                game: Some(v1::r#move::Game::Gops(v1::GopsMove { card: 4 })),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_view_reads_back_at_the_viewers_version_with_its_time_to_the_deadline() {
        let far = service_kit::time::now_ms() + 3_600_000;
        for (stored_version, version, at_ms) in
            [(5, 5, None), (5, 5, Some(far)), (4, 7, Some(far)), (0, 0, None), (3, 0, None)]
        {
            let stored = stored_view(stored_version, at_ms).encode_to_vec();
            let view = View::of(&stored, version).expect("a view");
            let head =
                Head { version, index: 2, private: true, traceparent: String::new(), tag: 1 };
            let m = WatchMessage::View { head, view };
            let got = v1::WatchMatchResponse::decode(m.encode_to_vec().as_slice()).unwrap();
            assert_eq!(m.encoded_len(), m.encode_to_vec().len());
            let v = got.view.clone().expect("the view");
            assert_eq!(v.version, version);
            assert_eq!(v.deadline_at_ms, at_ms);
            match at_ms {
                // Counted from now: within the hour, and not much less.
                Some(_) => assert!(v.deadline_in_ms.unwrap() > 3_500_000, "{v:?}"),
                None => assert_eq!(v.deadline_in_ms, None),
            }
            let mut expected = stored_view(version, at_ms);
            expected.deadline_in_ms = v.deadline_in_ms;
            assert_eq!(v, expected);
            assert_eq!((got.version, got.index, got.private, got.tag), (version, 2, true, 1));
            // As the engine stores it (at the viewer's version), as long as prost's own
            // encoding of the same message: a size says nothing the fields do not.
            let whole = v1::WatchMatchResponse { view: Some(expected), ..got.clone() };
            if stored_version == version {
                assert_eq!(m.encoded_len(), whole.encoded_len(), "{version}");
            }
        }
        // A stored time to the deadline without the deadline is dropped, not sent.
        let mut odd = stored_view(2, None);
        odd.deadline_in_ms = Some(5);
        let view = View::of(&odd.encode_to_vec(), 2).unwrap();
        let m = WatchMessage::View { head: Head::default(), view };
        assert_eq!(m.decoded().view.unwrap().deadline_in_ms, None);
    }

    #[test]
    fn only_a_parsing_event_is_sent_and_its_end_is_read_from_its_top_level() {
        assert_eq!(event_ends_match(&event(ended())), Some(true));
        let started = v1::event::Kind::MatchStarted(v1::MatchStarted::default());
        assert_eq!(event_ends_match(&event(started)), Some(false));
        assert_eq!(event_ends_match(&[]), Some(false));
        // A length past the end, a bad key: not sent (as a decode failure was not).
        assert_eq!(event_ends_match(&[0x1a, 0x05, 0x08]), None);
        assert_eq!(event_ends_match(&[0x00]), None);
        assert!(View::of(&[0x0a, 0x09], 1).is_none());
    }
}
