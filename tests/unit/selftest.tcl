# selftest.tcl -- self-test of tests/helpers/harness.tcl that needs no
# server binary: a fake server inside this process answers with canned
# bytes, so the RESP2/RESP3 parser, raw replies, timeouts and the assertion
# procs are checked exactly.

source [file join [file dirname [info script]] .. helpers harness.tcl]

# --- the fake server --------------------------------------------------------
# Each request read from a connection is answered with the next canned reply
# set by `fake`; "CLOSE" closes the connection instead; "" sends nothing.
set ::fake_next {}
set ::fake_requests {}

proc fake_accept {sock addr port} {
    fconfigure $sock -translation binary -blocking 0
    fileevent $sock readable [list fake_read $sock]
}

proc fake_read {sock} {
    set data [read $sock]
    if {$data eq "" && [eof $sock]} {
        close $sock
        return
    }
    lappend ::fake_requests $data
    set reply $::fake_next
    set ::fake_next {}
    if {$reply eq "CLOSE"} {
        close $sock
    } elseif {$reply ne ""} {
        puts -nonewline $sock $reply
        flush $sock
    }
}

proc fake {bytes} {
    set ::fake_next $bytes
}

set listener [socket -server fake_accept -myaddr 127.0.0.1 0]
set fsrv [dict create host 127.0.0.1 port [lindex [fconfigure $listener -sockname] 2]]
set c [client $fsrv]

# --- requests ---------------------------------------------------------------

test "requests are RESP multibulk" {
    fake "+OK\r\n"
    r $c SET "a b" "\r\n"
    assert_equal "*3\r\n\$3\r\nSET\r\n\$3\r\na b\r\n\$2\r\n\r\n\r\n" [lindex $::fake_requests end]
}

test "arguments above U+00FF are sent as UTF-8" {
    fake "+OK\r\n"
    r $c ECHO "\u20ac"
    assert_equal "*2\r\n\$4\r\nECHO\r\n\$3\r\n\xe2\x82\xac\r\n" [lindex $::fake_requests end]
    fake "+OK\r\n"
    r $c ECHO "\xe9"
    assert_equal "*2\r\n\$4\r\nECHO\r\n\$1\r\n\xe9\r\n" [lindex $::fake_requests end]
}

# --- RESP2 replies ----------------------------------------------------------

test "simple string, integer, bulk, null" {
    fake "+PONG\r\n"
    assert_equal PONG [r $c PING]
    fake ":-42\r\n"
    assert_equal -42 [r $c X]
    fake "\$5\r\na\r\nb\0\r\n"
    assert_equal "a\r\nb\0" [r $c X]
    fake "\$-1\r\n"
    assert_equal {} [r $c X]
    fake "*-1\r\n"
    assert_equal {} [r $c X]
}

test "arrays, nested arrays and nested errors" {
    fake "*3\r\n:1\r\n*2\r\n\$1\r\na\r\n\$-1\r\n-ERR inner\r\n"
    assert_equal {1 {a {}} {ERR inner}} [r $c X]
    fake "*0\r\n"
    assert_equal {} [r $c X]
}

test "error replies raise errors without the dash" {
    fake "-ERR something bad\r\n"
    assert_error "ERR something bad" {r $c X}
    fake "-WRONGTYPE Operation\r\n"
    set code [catch {r $c X} msg opts]
    assert_equal 1 $code
    assert_equal "WRONGTYPE Operation" $msg
    assert_equal {CAIRN REPLY {WRONGTYPE Operation}} [dict get $opts -errorcode]
}

test "rraw returns the exact bytes of one reply" {
    set bytes "*2\r\n\$3\r\nfoo\r\n*1\r\n:5\r\n"
    fake $bytes
    assert_equal $bytes [rraw $c X]
    fake "-ERR x\r\n"
    assert_equal "-ERR x\r\n" [rraw $c X]
}

test "two replies in one packet are read one at a time" {
    fake "+ONE\r\n:2\r\n"
    assert_equal ONE [r $c X]
    assert_equal ":2\r\n" [read_raw_reply $c]
}

# --- RESP3 replies ----------------------------------------------------------

test "RESP3 scalars" {
    fake "_\r\n"
    assert_equal {} [r $c X]
    fake ",3.14\r\n"
    assert_equal 3.14 [r $c X]
    fake ",inf\r\n"
    assert_equal inf [r $c X]
    fake "#t\r\n"
    assert_equal 1 [r $c X]
    fake "#f\r\n"
    assert_equal 0 [r $c X]
    fake "(12345678901234567890\r\n"
    assert_equal 12345678901234567890 [r $c X]
    fake "=15\r\ntxt:Some string\r\n"
    assert_equal "Some string" [r $c X]
}

test "RESP3 blob error raises" {
    fake "!21\r\nSYNTAX invalid syntax\r\n"
    assert_error "SYNTAX invalid syntax" {r $c X}
}

test "RESP3 map and set" {
    fake "%2\r\n+first\r\n:1\r\n+second\r\n*2\r\n:2\r\n:3\r\n"
    assert_equal {first 1 second {2 3}} [r $c X]
    fake "~3\r\n+a\r\n+b\r\n+c\r\n"
    assert_equal {a b c} [r $c X]
}

test "RESP3 attributes are skipped" {
    fake "|1\r\n+key-popularity\r\n%1\r\n\$1\r\na\r\n,0.1923\r\n*2\r\n:2\r\n:9\r\n"
    assert_equal {2 9} [r $c X]
}

test "RESP3 pushes are queued" {
    fake ">2\r\n+invalidate\r\n*1\r\n\$3\r\nkey\r\n+OK\r\n"
    assert_equal OK [r $c X]
    assert_equal {invalidate key} [read_push $c]
}

# --- failures ---------------------------------------------------------------

test "reply timeout" {
    set t [client $fsrv -timeout 200]
    fake ""
    set start [clock milliseconds]
    assert_error "timeout waiting for reply" {r $t X}
    assert_range [expr {[clock milliseconds] - $start}] 150 5000
    close_client $t
}

test "connection closed by the server" {
    set t [client $fsrv]
    fake CLOSE
    assert_error "connection closed by server" {r $t X}
    close_client $t
    set t [client $fsrv]
    fake CLOSE
    send_raw $t "PING\r\n"
    assert [connection_closed $t]
    close_client $t
}

test "partial reply then close" {
    set t [client $fsrv]
    fake "\$10\r\nabc"
    send_raw $t "X\r\n"
    set ::fake_next CLOSE
    # The next request closes; the pending partial reply fails.
    catch {send_raw $t "Y\r\n"}
    assert_error "connection closed by server" {read_reply $t}
    close_client $t
}

# --- assertions -------------------------------------------------------------

test "assert_equal and assert_match" {
    assert_equal a a
    assert_error "expected 'a' but got 'b'" {assert_equal a b}
    assert_error "ctx: expected 'a' but got 'b'" {assert_equal a b ctx}
    catch {assert_equal "\r\n" "\n"} msg
    assert_equal {expected '\r\n' but got '\n'} $msg
    assert_match a* abc
    assert_error "expected 'xbc' to match 'a\*'" {assert_match a* xbc}
    assert_not_equal a b
    assert_error "did not expect 'a'" {assert_not_equal a a}
}

test "assert_error" {
    assert_equal boom [assert_error boom {error boom}]
    assert_error "expected an error matching 'x' but got 'fine'" {assert_error x {set y fine}}
    assert_error "expected an error matching 'x' but got error 'y'" {assert_error x {error y}}
}

test "assert, assert_range and wait_for" {
    set v 5
    assert {$v == 5}
    assert_error "assertion failed: \$v == 4 (with values: 5 == 4)" {assert {$v == 4}}
    assert_range 5 1 10
    assert_range 2.5 2 3
    assert_error "expected '11' to be in range 1..10" {assert_range 11 1 10}
    assert_error "expected 'abc' to be in range 1..10" {assert_range abc 1 10}
    set n 0
    wait_for {[incr n] >= 3} 1000
    assert_equal 3 $n
    assert_error "condition {0} still false after 50ms" {wait_for {0} 50}
}

test "the test body runs in the caller's scope" {
    set ::scope_probe [info level]
}
assert_equal 0 $::scope_probe
set outer 1
test "variables of the file are visible" {
    assert_equal 1 $outer
    set inner 2
}
assert_equal 2 $inner

test "skip_test raises the skip error code" {
    # (The test proc turns this into a "[skip] NAME: reason" line.)
    assert_equal 1 [catch {skip_test "not applicable"} msg opts]
    assert_equal "not applicable" $msg
    assert_equal {CAIRN SKIP} [dict get $opts -errorcode]
}

test "tags: the CAIRN_TAGS filter" -tags {harness} {
    set saved $::cairn(tags)
    set ::cairn(tags) {-slow}
    assert_equal "tag slow excluded" [::cairn_h::tag_skip_reason {slow x}]
    assert_equal "" [::cairn_h::tag_skip_reason {x}]
    set ::cairn(tags) {needs-lists}
    assert_equal "" [::cairn_h::tag_skip_reason {needs-lists}]
    assert_match "no tag in*" [::cairn_h::tag_skip_reason {}]
    set ::cairn(tags) {+a -b}
    assert_equal "" [::cairn_h::tag_skip_reason {a}]
    assert_equal "tag b excluded" [::cairn_h::tag_skip_reason {a b}]
    set ::cairn(tags) $saved
}

test "server_info parses INFO text" {
    set text "# Server\r\nredis_version:7.0.15\r\n\r\n# Keyspace\r\ndb0:keys=1\r\n"
    fake "\$[string length $text]\r\n$text\r\n"
    set d [server_info $c]
    assert_equal {redis_version 7.0.15 db0 keys=1} $d
}

close_client $c
close $listener
finish
