use proptest::prelude::*;

use super::*;

/// Every event, fed in pieces of `piece` bytes.
fn parse(bytes: &[u8], piece: usize) -> Result<Vec<(String, String)>, SseError> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in bytes.chunks(piece.max(1)) {
        parser.push(chunk);
        while let Some(e) = parser.next_event()? {
            out.push((e.name.to_owned(), e.data.to_owned()));
        }
    }
    Ok(out)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(n, d)| ((*n).to_owned(), (*d).to_owned()))
        .collect()
}

#[test]
fn the_spec_examples() {
    // https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
    let stream = b"data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\ndata: This is the third message.\n\n";
    assert_eq!(
        parse(stream, 7).unwrap(),
        pairs(&[
            ("message", "This is the first message."),
            ("message", "This is the second message, it\nhas two lines."),
            ("message", "This is the third message."),
        ])
    );
    let stream = b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\n: comment\nevent: add\ndata: 113411\n\n";
    assert_eq!(
        parse(stream, 3).unwrap(),
        pairs(&[("add", "73857293"), ("remove", "2153"), ("add", "113411")])
    );
    // "data" with no colon and "data:" both add an empty line; only the first space goes.
    assert_eq!(
        parse(b"data\n\ndata\ndata\n\ndata:\n\ndata:  two\n\n", 1).unwrap(),
        pairs(&[
            ("message", ""),
            ("message", "\n"),
            ("message", ""),
            ("message", " two")
        ])
    );
}

#[test]
fn line_endings_bom_and_events_without_data() {
    let stream = b"\xEF\xBB\xBFdata: a\r\n\r\ndata: b\r\rdata: c\n\nevent: x\n\ndata: d\n";
    for piece in 1..=stream.len() {
        assert_eq!(
            parse(stream, piece).unwrap(),
            pairs(&[("message", "a"), ("message", "b"), ("message", "c")]),
            "piece {piece}"
        );
    }
}

#[test]
fn invalid_utf8_is_an_error() {
    assert_eq!(parse(b"data: \xFF\n\n", 4), Err(SseError::Utf8));
}

fn reference(bytes: &[u8], piece: usize) -> Vec<(String, String)> {
    use eventsource_stream::Eventsource;
    use futures::StreamExt;
    let pieces = bytes
        .chunks(piece.max(1))
        .map(|c| Ok::<_, std::convert::Infallible>(c.to_vec()));
    futures::executor::block_on(
        futures::stream::iter(pieces)
            .eventsource()
            .map(|e| e.map(|e| (e.event, e.data)))
            .collect::<Vec<_>>(),
    )
    .into_iter()
    .map_while(Result::ok)
    .collect()
}

fn line() -> impl Strategy<Value = String> {
    let field = prop_oneof![
        Just("data"),
        Just("event"),
        Just("id"),
        Just("retry"),
        Just(""),
        Just("other"),
    ];
    let end = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    (
        field,
        prop_oneof![Just(":"), Just(": "), Just("")],
        "[a-z é{}\":]{0,8}",
        end,
    )
        .prop_map(|(f, colon, v, end)| format!("{f}{colon}{v}{end}"))
}

proptest! {
    /// Same events as the `eventsource-stream` crate, however the stream is cut. (A
    /// CR ends a line at once, as the spec says; that crate waits for a possible LF
    /// first, so a stream ending in CR would differ: each ends with a comment line.)
    #[test]
    fn agrees_with_eventsource_stream(
        lines in prop::collection::vec(line(), 0..24),
        piece in 1usize..40,
    ) {
        let stream = lines.concat() + ":end\n";
        let ours = parse(stream.as_bytes(), piece);
        prop_assert_eq!(ours, Ok(reference(stream.as_bytes(), piece)));
    }
}
