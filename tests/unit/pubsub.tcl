# pubsub.tcl -- Pub/Sub: SUBSCRIBE/PSUBSCRIBE/SSUBSCRIBE and their UNs,
# PUBLISH/SPUBLISH, PUBSUB introspection, RESP2 subscriber mode, RESP3 push,
# the pubsub output buffer limit, and keyspace notifications.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]

test "SUBSCRIBE replies per channel with the running count" {
    set s [client $srv]
    send_cmd $s SUBSCRIBE ch1 ch2
    assert_equal {subscribe ch1 1} [read_reply $s]
    assert_equal {subscribe ch2 2} [read_reply $s]
    assert_equal 1 [r $c PUBLISH ch1 hello]
    assert_equal {message ch1 hello} [read_reply $s]
    assert_equal 0 [r $c PUBLISH nobody x]
    close_client $s
}

test "PSUBSCRIBE delivers pmessage and PUBLISH counts every delivery" {
    set s [client $srv]
    send_cmd $s SUBSCRIBE news.1
    read_reply $s
    send_cmd $s PSUBSCRIBE news.*
    assert_equal {psubscribe news.* 2} [read_reply $s]
    assert_equal 2 [r $c PUBLISH news.1 hi]
    assert_equal {message news.1 hi} [read_reply $s]
    assert_equal {pmessage news.* news.1 hi} [read_reply $s]
    close_client $s
}

test "UNSUBSCRIBE without arguments, and with nothing subscribed" {
    set s [client $srv]
    send_cmd $s SUBSCRIBE a b
    read_reply $s
    read_reply $s
    send_cmd $s UNSUBSCRIBE
    set got [list [read_reply $s] [read_reply $s]]
    # The order of channels is unspecified; the counts go down to 0.
    assert_equal {a b} [lsort [list [lindex $got 0 1] [lindex $got 1 1]]]
    assert_equal {1 0} [list [lindex $got 0 2] [lindex $got 1 2]]
    assert_equal "*3\r\n\$11\r\nunsubscribe\r\n\$-1\r\n:0\r\n" [rraw $s UNSUBSCRIBE]
    assert_equal "*3\r\n\$12\r\npunsubscribe\r\n\$-1\r\n:0\r\n" [rraw $s PUNSUBSCRIBE]
    # Out of subscriber mode again: normal commands work.
    assert_equal PONG [r $s PING]
    close_client $s
}

test "RESP2 subscriber mode allows only the Pub/Sub dialect" {
    set s [client $srv]
    send_cmd $s SUBSCRIBE x
    read_reply $s
    assert_error "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context" {r $s GET k}
    assert_equal "*2\r\n\$4\r\npong\r\n\$0\r\n\r\n" [rraw $s PING]
    assert_equal "*2\r\n\$4\r\npong\r\n\$3\r\nabc\r\n" [rraw $s PING abc]
    assert_equal RESET [r $s RESET]
    assert_equal PONG [r $s PING]
    close_client $s
}

test "RESP3 subscribers get push messages and can run any command" {
    set s [client $srv -resp 3]
    send_cmd $s SUBSCRIBE r3
    assert_equal {subscribe r3 1} [read_push $s]
    r $c SET k v
    assert_equal v [r $s GET k]
    r $c PUBLISH r3 m
    assert_equal {message r3 m} [read_push $s]
    close_client $s
}

test "CLIENT REPLY OFF/SKIP silence replies but not Pub/Sub pushes" {
    # As in Redis: confirmations and messages are pushes, which reply
    # silencing does not drop, in RESP2 and RESP3 alike; the PONG and the
    # PUBLISH count are ordinary replies and are dropped.
    foreach proto {2 3} {
        set s [client $srv -resp $proto]
        set next [expr {$proto == 3 ? "read_push" : "read_reply"}]
        send_cmd $s CLIENT REPLY OFF
        send_cmd $s SUBSCRIBE ch
        assert_equal {subscribe ch 1} [$next $s]
        if {$proto == 3} {
            send_cmd $s PING
            send_cmd $s PUBLISH ch self
            assert_equal {message ch self} [$next $s]
        }
        r $c PUBLISH ch other
        assert_equal {message ch other} [$next $s]
        send_cmd $s CLIENT REPLY SKIP
        send_cmd $s UNSUBSCRIBE ch
        assert_equal {unsubscribe ch 0} [$next $s]
        send_cmd $s CLIENT REPLY ON
        assert_equal OK [read_reply $s]
        close_client $s
    }
}

test "SSUBSCRIBE, SPUBLISH and PUBSUB SHARD*" {
    set s [client $srv]
    send_cmd $s SSUBSCRIBE sh1
    assert_equal {ssubscribe sh1 1} [read_reply $s]
    assert_equal {sh1} [r $c PUBSUB SHARDCHANNELS]
    assert_equal {sh1 1} [r $c PUBSUB SHARDNUMSUB sh1]
    assert_equal 1 [r $c SPUBLISH sh1 v]
    assert_equal {smessage sh1 v} [read_reply $s]
    # PUBLISH does not reach shard subscribers.
    assert_equal 0 [r $c PUBLISH sh1 v]
    close_client $s
}

test "PUBSUB CHANNELS, NUMSUB, NUMPAT" {
    set s [client $srv]
    send_cmd $s SUBSCRIBE alpha beta
    read_reply $s
    read_reply $s
    send_cmd $s PSUBSCRIBE p* q*
    read_reply $s
    read_reply $s
    assert_equal {alpha beta} [lsort [r $c PUBSUB CHANNELS]]
    assert_equal {alpha} [r $c PUBSUB CHANNELS al*]
    assert_equal {alpha 1 gamma 0} [r $c PUBSUB NUMSUB alpha gamma]
    assert_equal 2 [r $c PUBSUB NUMPAT]
    close_client $s
    wait_for {[r $c PUBSUB NUMPAT] == 0}
    assert_equal {} [r $c PUBSUB CHANNELS]
}

test "CLIENT LIST shows subscriptions and the pubsub type" {
    set s [client $srv]
    send_cmd $s SUBSCRIBE a b
    read_reply $s
    read_reply $s
    send_cmd $s PSUBSCRIBE z*
    read_reply $s
    set l [r $c CLIENT LIST TYPE pubsub]
    assert_match "*sub=2 psub=1*flags=P*" [string map {"\n" ""} [regsub {flags=(\S+)} $l {}]][regexp -inline {flags=\S+} $l]
    close_client $s
}

test "a subscriber that never reads is disconnected by the pubsub limit" {
    r $c CONFIG SET client-output-buffer-limit "pubsub 100kb 0 0"
    set s [client $srv]
    send_cmd $s SUBSCRIBE flood
    read_reply $s
    set payload [string repeat x 10000]
    set p [client $srv]
    set one "*3\r\n\$7\r\nPUBLISH\r\n\$5\r\nflood\r\n\$10000\r\n$payload\r\n"
    send_raw $p [string repeat $one 2000]
    for {set i 0} {$i < 2000} {incr i} { read_reply $p }
    close_client $p
    wait_for {[r $c PUBLISH flood x] == 0}
    r $c CONFIG SET client-output-buffer-limit "pubsub 32mb 8mb 60"
    assert_equal PONG [r $c PING]
}

test "keyspace notifications: K and E classes, event names" {
    r $c CONFIG SET notify-keyspace-events KEA
    set s [client $srv]
    send_cmd $s PSUBSCRIBE __key*@0__:*
    read_reply $s
    r $c SET nk v
    assert_equal {pmessage __key*@0__:* __keyspace@0__:nk set} [read_reply $s]
    assert_equal {pmessage __key*@0__:* __keyevent@0__:set nk} [read_reply $s]
    r $c EXPIRE nk 100
    assert_equal {pmessage __key*@0__:* __keyspace@0__:nk expire} [read_reply $s]
    read_reply $s
    r $c DEL nk
    assert_equal {pmessage __key*@0__:* __keyspace@0__:nk del} [read_reply $s]
    read_reply $s
    r $c INCRBY counter 5
    assert_equal {pmessage __key*@0__:* __keyspace@0__:counter incrby} [read_reply $s]
    read_reply $s
    r $c CONFIG SET notify-keyspace-events ""
    close_client $s
}

test "keyspace notifications: expired events from active expiry" {
    r $c CONFIG SET notify-keyspace-events Ex
    set s [client $srv]
    send_cmd $s SUBSCRIBE __keyevent@0__:expired
    read_reply $s
    r $c SET gone v PX 50
    assert_equal {message __keyevent@0__:expired gone} [read_reply $s]
    r $c CONFIG SET notify-keyspace-events ""
    close_client $s
}

test "keyspace notifications: only the selected classes" {
    r $c CONFIG SET notify-keyspace-events Kg
    set s [client $srv]
    send_cmd $s PSUBSCRIBE *
    read_reply $s
    r $c SET onlystring v   ;# string class: not selected
    r $c DEL onlystring     ;# generic class: selected
    assert_equal {pmessage * __keyspace@0__:onlystring del} [read_reply $s]
    r $c CONFIG SET notify-keyspace-events ""
    close_client $s
}

finish
