# protocol.tcl -- RESP parsing: inline and multibulk requests, pipelining,
# protocol errors (exact Redis 7.0 texts, connection closed afterwards),
# RESP3 via HELLO, and the generic command error replies.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]

# A fresh connection that is closed at the end of the calling test body is
# cheap: protocol errors kill the connection, so most tests use their own.
proc fresh {} {
    return [client $::srv]
}

# Sends BYTES on a new connection and expects exactly the error reply ERR
# followed by the server closing the connection.
proc expect_protocol_error {bytes err} {
    set x [fresh]
    send_raw $x $bytes
    assert_equal "-$err\r\n" [read_raw_reply $x]
    assert [connection_closed $x] "connection should be closed after a protocol error"
    close_client $x
    # The server still serves other clients.
    assert_equal PONG [r $::c PING]
}

# ---------------------------------------------------------------------------
# Inline commands
# ---------------------------------------------------------------------------

test "inline PING" {
    set x [fresh]
    send_raw $x "PING\r\n"
    assert_equal "+PONG\r\n" [read_raw_reply $x]
    close_client $x
}

test "inline command with arguments" {
    set x [fresh]
    send_raw $x "SET inline:k hello\r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    send_raw $x "GET inline:k\r\n"
    assert_equal "\$5\r\nhello\r\n" [read_raw_reply $x]
    close_client $x
}

test "inline command terminated by a bare LF" {
    set x [fresh]
    send_raw $x "ECHO lf-only\n"
    assert_equal "\$7\r\nlf-only\r\n" [read_raw_reply $x]
    close_client $x
}

test "inline arguments are split on runs of blanks" {
    set x [fresh]
    send_raw $x "SET   inline:sp    \t  value  \r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    assert_equal value [r $c GET inline:sp]
    close_client $x
}

test "inline double quotes and escapes" {
    set x [fresh]
    send_raw $x "SET inline:q \"a b\\tc\\x41\\n\"\r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    assert_equal "a b\tcA\n" [r $c GET inline:q]
    send_raw $x "SET inline:q 'single \"quoted\"'\r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    assert_equal {single "quoted"} [r $c GET inline:q]
    send_raw $x "SET inline:q \"\"\r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    assert_equal "\$0\r\n\r\n" [rraw $c GET inline:q]
    close_client $x
}

test "inline unbalanced quotes is a protocol error" {
    expect_protocol_error "SET k \"abc\r\n" "ERR Protocol error: unbalanced quotes in request"
}

test "inline closing quote followed by a non-blank is a protocol error" {
    expect_protocol_error "SET k \"a\"b\r\n" "ERR Protocol error: unbalanced quotes in request"
}

test "inline request larger than 64k without newline" {
    # Exactly one byte over the limit, so the server has read everything
    # we sent when it closes the connection.
    expect_protocol_error [string repeat a 65537] "ERR Protocol error: too big inline request"
}

test "empty lines are ignored" {
    set x [fresh]
    send_raw $x "\r\n\r\n\n\r\nPING\r\n\r\n"
    assert_equal "+PONG\r\n" [read_raw_reply $x]
    # Nothing else is pending: the next reply is for the next command.
    assert_equal "+OK\r\n" [rraw $x SET empty:k v]
    close_client $x
}

test "blank-only inline lines are ignored" {
    set x [fresh]
    send_raw $x "   \r\nECHO x\r\n"
    assert_equal "\$1\r\nx\r\n" [read_raw_reply $x]
    close_client $x
}

# ---------------------------------------------------------------------------
# Multibulk requests
# ---------------------------------------------------------------------------

test "multibulk request" {
    set x [fresh]
    send_raw $x "*3\r\n\$3\r\nSET\r\n\$4\r\nmb:k\r\n\$5\r\nworld\r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    send_raw $x "*2\r\n\$3\r\nGET\r\n\$4\r\nmb:k\r\n"
    assert_equal "\$5\r\nworld\r\n" [read_raw_reply $x]
    close_client $x
}

test "multibulk arguments are binary safe" {
    set v "a\r\nb\0c\xff\r\n"
    assert_equal OK [r $c SET "mb:bin\r\n\0" $v]
    assert_equal $v [r $c GET "mb:bin\r\n\0"]
    assert_equal "\$[string length $v]\r\n$v\r\n" [rraw $c GET "mb:bin\r\n\0"]
}

test "empty bulk argument" {
    assert_equal OK [r $c SET mb:empty ""]
    assert_equal "\$0\r\n\r\n" [rraw $c GET mb:empty]
    assert_equal OK [r $c SET "" emptykey]
    assert_equal emptykey [r $c GET ""]
}

test "request split into many small writes" {
    set x [fresh]
    set req "*3\r\n\$3\r\nSET\r\n\$8\r\nmb:split\r\n\$10\r\n0123456789\r\n"
    foreach ch [split $req ""] {
        send_raw $x $ch
    }
    assert_equal "+OK\r\n" [read_raw_reply $x]
    # Also split in the middle of the count, the length and the payload.
    send_raw $x "*"
    after 20
    send_raw $x "2\r\n\$"
    after 20
    send_raw $x "3\r\nGE"
    after 20
    send_raw $x "T\r\n\$8\r\nmb:s"
    after 20
    send_raw $x "plit\r\n"
    assert_equal "\$10\r\n0123456789\r\n" [read_raw_reply $x]
    close_client $x
}

test "large bulk argument (1MB) in several writes" {
    set v [string repeat "0123456789abcdef" 65536]
    set x [fresh]
    set req "*3\r\n\$3\r\nSET\r\n\$6\r\nmb:big\r\n\$[string length $v]\r\n$v\r\n"
    set n [string length $req]
    for {set i 0} {$i < $n} {incr i 100000} {
        send_raw $x [string range $req $i [expr {$i + 99999}]]
    }
    assert_equal "+OK\r\n" [read_raw_reply $x]
    assert_equal [string length $v] [r $c STRLEN mb:big]
    assert_equal $v [r $c GET mb:big]
    close_client $x
}

test "zero and negative multibulk counts are ignored" {
    set x [fresh]
    send_raw $x "*0\r\n*-1\r\n*-5\r\nPING\r\n"
    assert_equal "+PONG\r\n" [read_raw_reply $x]
    close_client $x
}

test "invalid multibulk length: too large" {
    expect_protocol_error "*3000000000\r\n" "ERR Protocol error: invalid multibulk length"
}

test "invalid multibulk length: not a number" {
    expect_protocol_error "*abc\r\n" "ERR Protocol error: invalid multibulk length"
    expect_protocol_error "*\r\n" "ERR Protocol error: invalid multibulk length"
    expect_protocol_error "*1x\r\n" "ERR Protocol error: invalid multibulk length"
}

test "invalid multibulk length: plus sign or leading zero" {
    expect_protocol_error "*+1\r\n\$4\r\nPING\r\n" "ERR Protocol error: invalid multibulk length"
    expect_protocol_error "*01\r\n\$4\r\nPING\r\n" "ERR Protocol error: invalid multibulk length"
}

test "multibulk count line longer than 64k" {
    expect_protocol_error "*[string repeat 1 65536]" "ERR Protocol error: too big mbulk count string"
}

test "expected '\$' but got something else" {
    expect_protocol_error "*1\r\nfoo\r\n" "ERR Protocol error: expected '\$', got 'f'"
    expect_protocol_error "*2\r\n\$4\r\nECHO\r\n:1\r\n" "ERR Protocol error: expected '\$', got ':'"
}

test "invalid bulk length: not a number" {
    expect_protocol_error "*1\r\n\$abc\r\n" "ERR Protocol error: invalid bulk length"
    expect_protocol_error "*1\r\n\$\r\n" "ERR Protocol error: invalid bulk length"
    expect_protocol_error "*1\r\n\$3x\r\n" "ERR Protocol error: invalid bulk length"
    expect_protocol_error "*1\r\n\$ 3\r\n" "ERR Protocol error: invalid bulk length"
}

test "invalid bulk length: negative" {
    expect_protocol_error "*1\r\n\$-1\r\n" "ERR Protocol error: invalid bulk length"
}

test "bulk length above proto-max-bulk-len (default 512mb)" {
    expect_protocol_error "*1\r\n\$536870913\r\n" "ERR Protocol error: invalid bulk length"
}

test "bulk length above a lowered proto-max-bulk-len" {
    assert_equal OK [r $c CONFIG SET proto-max-bulk-len 1mb]
    expect_protocol_error "*2\r\n\$4\r\nECHO\r\n\$1048577\r\n" "ERR Protocol error: invalid bulk length"
    # Exactly the limit is fine.
    set v [string repeat x 1048576]
    assert_equal [string length $v] [string length [r $c ECHO $v]]
    assert_equal OK [r $c CONFIG SET proto-max-bulk-len 512mb]
}

test "bulk count line longer than 64k" {
    expect_protocol_error "*1\r\n\$[string repeat 1 65536]" "ERR Protocol error: too big bulk count string"
}

test "protocol error after valid commands in the same write" {
    set x [fresh]
    send_raw $x "PING\r\n*1\r\n\$4\r\nPING\r\n*1\r\nfoo\r\n"
    assert_equal "+PONG\r\n" [read_raw_reply $x]
    assert_equal "+PONG\r\n" [read_raw_reply $x]
    assert_equal "-ERR Protocol error: expected '\$', got 'f'\r\n" [read_raw_reply $x]
    assert [connection_closed $x]
    close_client $x
}

test "server keeps serving existing clients after protocol errors" {
    set others {}
    for {set i 0} {$i < 5} {incr i} { lappend others [fresh] }
    foreach bad {"*abc\r\n" "*1\r\n\$x\r\n" "SET \"x\r\n"} {
        set x [fresh]
        send_raw $x $bad
        read_raw_reply $x
        close_client $x
    }
    foreach o $others {
        assert_equal PONG [r $o PING]
        close_client $o
    }
}

# ---------------------------------------------------------------------------
# Pipelining
# ---------------------------------------------------------------------------

test "pipelining 1000 commands in one write" {
    r $c DEL pipe:n
    set req ""
    for {set i 0} {$i < 1000} {incr i} {
        append req [::cairn_h::encode {INCR pipe:n}]
    }
    set x [fresh]
    send_raw $x $req
    for {set i 1} {$i <= 1000} {incr i} {
        set got [read_raw_reply $x]
        if {$got ne ":$i\r\n"} {
            assert_equal ":$i\r\n" $got "reply $i"
        }
    }
    assert_equal 1000 [r $c GET pipe:n]
    close_client $x
}

test "pipelining mixed inline and multibulk requests" {
    set x [fresh]
    send_raw $x "SET pipe:m 1\r\n*2\r\n\$4\r\nINCR\r\n\$6\r\npipe:m\r\nINCR pipe:m\r\n*2\r\n\$3\r\nGET\r\n\$6\r\npipe:m\r\n"
    assert_equal "+OK\r\n" [read_raw_reply $x]
    assert_equal ":2\r\n" [read_raw_reply $x]
    assert_equal ":3\r\n" [read_raw_reply $x]
    assert_equal "\$1\r\n3\r\n" [read_raw_reply $x]
    close_client $x
}

test "pipelined errors do not stop the following commands" {
    set x [fresh]
    send_raw $x "NOSUCHCMD\r\nGET\r\nECHO ok\r\n"
    assert_match "-ERR unknown command*" [read_raw_reply $x]
    assert_equal "-ERR wrong number of arguments for 'get' command\r\n" [read_raw_reply $x]
    assert_equal "\$2\r\nok\r\n" [read_raw_reply $x]
    close_client $x
}

test "large pipeline with big replies is delivered completely" {
    set v [string repeat v 10000]
    r $c SET pipe:big $v
    set req ""
    for {set i 0} {$i < 500} {incr i} {
        append req [::cairn_h::encode {GET pipe:big}]
    }
    set x [fresh]
    send_raw $x $req
    for {set i 0} {$i < 500} {incr i} {
        set got [read_reply $x]
        if {$got ne $v} { assert_equal $v $got "reply $i" }
    }
    close_client $x
}

# ---------------------------------------------------------------------------
# Command errors
# ---------------------------------------------------------------------------

test "unknown command error text" {
    assert_equal "-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n" \
        [rraw $c foo a b]
    assert_equal "-ERR unknown command 'NOSUCH', with args beginning with: \r\n" \
        [rraw $c NOSUCH]
    assert_error "ERR unknown command 'foo', with args beginning with: 'x' " {r $c foo x}
}

test "unknown command error truncates long arguments" {
    set long [string repeat a 200]
    set err [assert_error "ERR unknown command*" {r $c foo $long b}]
    assert_equal "ERR unknown command 'foo', with args beginning with: '[string repeat a 128]' " $err
}

test "wrong number of arguments error text" {
    assert_equal "-ERR wrong number of arguments for 'get' command\r\n" [rraw $c GET]
    assert_equal "-ERR wrong number of arguments for 'get' command\r\n" [rraw $c get a b]
    assert_equal "-ERR wrong number of arguments for 'set' command\r\n" [rraw $c SeT k]
    assert_error "ERR wrong number of arguments for 'config|get' command" {r $c CONFIG GET}
    assert_error "ERR wrong number of arguments for 'config' command" {r $c CONFIG}
}

test "unknown subcommand error text" {
    assert_error "ERR unknown subcommand 'FOO'. Try CONFIG HELP." {r $c CONFIG FOO}
    assert_error "ERR unknown subcommand 'bar'. Try CLIENT HELP." {r $c CLIENT bar}
}

test "command names are case insensitive" {
    assert_equal PONG [r $c ping]
    assert_equal PONG [r $c PiNg]
    assert_equal OK [r $c sEt case:k v]
    assert_equal v [r $c gEt case:k]
}

# ---------------------------------------------------------------------------
# RESP3
# ---------------------------------------------------------------------------

test "HELLO 3 returns a map" {
    set x [fresh]
    set raw [rraw $x HELLO 3]
    assert_match "%7\r\n\$6\r\nserver\r\n*" $raw
    foreach field {server version proto id mode role modules} {
        assert_match "*\$[string length $field]\r\n$field\r\n*" $raw
    }
    assert_match "*\$5\r\nproto\r\n:3\r\n*" $raw
    close_client $x
}

test "HELLO 3 parsed fields" {
    set x [fresh]
    set h [r $x HELLO 3]
    assert_equal 3 [dict get $h proto]
    assert_equal [r $x CLIENT ID] [dict get $h id]
    assert_match 7.* [dict get $h version]
    assert_equal standalone [dict get $h mode]
    assert_equal master [dict get $h role]
    close_client $x
}

test "RESP3 null replies" {
    set x [fresh]
    r $x HELLO 3
    r $x DEL resp3:nokey
    r $x SET resp3:x x
    assert_equal "_\r\n" [rraw $x GET resp3:nokey]
    assert_equal "*2\r\n\$1\r\nx\r\n_\r\n" [rraw $x MGET resp3:x resp3:nokey]
    assert_equal {} [r $x GET resp3:nokey]
    close_client $x
}

test "RESP3 CONFIG GET is a map" {
    set x [fresh]
    r $x HELLO 3
    assert_equal "%1\r\n\$9\r\nmaxmemory\r\n\$1\r\n0\r\n" [rraw $x CONFIG GET maxmemory]
    close_client $x
}

test "HELLO 2 switches back to RESP2" {
    set x [fresh]
    r $x HELLO 3
    assert_equal "_\r\n" [rraw $x GET resp3:nokey]
    set raw [rraw $x HELLO 2]
    assert_match "*14\r\n\$6\r\nserver\r\n*\$5\r\nproto\r\n:2\r\n*" $raw
    assert_equal "\$-1\r\n" [rraw $x GET resp3:nokey]
    assert_equal "*2\r\n\$9\r\nmaxmemory\r\n\$1\r\n0\r\n" [rraw $x CONFIG GET maxmemory]
    close_client $x
}

test "HELLO without arguments keeps the protocol" {
    set x [fresh]
    set h [r $x HELLO]
    assert_equal 2 [dict get $h proto]
    r $x HELLO 3
    assert_match "%7\r\n*" [rraw $x HELLO]
    assert_equal "_\r\n" [rraw $x GET resp3:nokey]
    close_client $x
}

test "RESP3 error replies keep the same text" {
    set x [fresh]
    r $x HELLO 3
    assert_equal "-ERR wrong number of arguments for 'get' command\r\n" [rraw $x GET]
    close_client $x
}

test "a command with 100,000 arguments leaves no memory pinned to its client" {
    # The parser's argument array and the client's argv grow for a request
    # that big (3 MB together); they must not stay that size afterwards.
    set x [client $srv]
    set base [info_field $x used_memory memory]
    set keys {}
    for {set i 0} {$i < 100000} {incr i} { lappend keys $i }
    assert_equal 0 [r $x EXISTS {*}$keys]
    r $x PING
    # The query buffer shrinks in the cron once the client is idle.
    wait_for {[info_field $x used_memory memory] - $base < 300000} 5000 \
        "used_memory still [expr {[info_field $x used_memory memory] - $base}] bytes above the start"
    close_client $x
}

finish
