# tracking.tcl -- client-side caching (CLIENT TRACKING, CACHING, GETREDIR,
# TRACKINGINFO) with RESP3 pushes and RESP2 redirection, and CLIENT
# PAUSE/UNPAUSE.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set writer [client $srv]

test "RESP3 tracking: a read key is invalidated once when another client writes it" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $writer SET tk1 v
    r $t GET tk1
    r $writer SET tk1 v2
    assert_equal {invalidate tk1} [read_push $t]
    # Forgotten after one invalidation until read again.
    r $writer SET tk1 v3
    r $t GET tk1
    r $writer DEL tk1
    assert_equal {invalidate tk1} [read_push $t]
    close_client $t
}

test "own writes invalidate after the reply, unless NOLOOP" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $t GET own
    assert_equal "+OK\r\n" [rraw $t SET own 1]
    assert_equal {invalidate own} [read_push $t]
    r $t CLIENT TRACKING on NOLOOP
    r $t GET own
    # No push for our own write; the key is forgotten all the same.
    assert_equal "+OK\r\n" [rraw $t SET own 2]
    r $t GET own
    r $writer SET own 3
    assert_equal {invalidate own} [read_push $t]
    close_client $t
}

test "FLUSHALL invalidates everything with a null key list" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $t GET fa
    r $writer FLUSHALL
    assert_equal "invalidate {}" [read_push $t]
    close_client $t
}

test "expiry invalidates tracked keys" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $writer SET exp v PX 50
    r $t GET exp
    assert_equal {invalidate exp} [read_push $t]
    close_client $t
}

test "RESP2 REDIRECT delivers invalidations on __redis__:invalidate" {
    set sub [client $srv]
    set subid [r $sub CLIENT ID]
    send_cmd $sub SUBSCRIBE __redis__:invalidate
    read_reply $sub
    set t [client $srv]
    r $t CLIENT TRACKING on REDIRECT $subid
    assert_equal $subid [r $t CLIENT GETREDIR]
    r $t GET rk
    r $writer SET rk 1
    assert_equal {message __redis__:invalidate rk} [read_reply $sub]
    assert_error "ERR The client ID you want redirect to does not exist" {r $t CLIENT TRACKING on REDIRECT 999999}
    close_client $t
    close_client $sub
}

test "BCAST prefixes get every matching change, batched" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on BCAST PREFIX user: PREFIX cfg:
    r $writer SET user:1 a
    assert_equal {invalidate user:1} [read_push $t]
    r $writer SET other:1 a
    r $writer SET cfg:x a
    assert_equal {invalidate cfg:x} [read_push $t]
    set info [r $t CLIENT TRACKINGINFO]
    assert_equal {on bcast} [dict get $info flags]
    assert_equal {cfg: user:} [dict get $info prefixes]
    assert_error "ERR Prefix 'user:a' overlaps with an existing prefix 'user:'. Prefixes for a single client must not overlap." {r $t CLIENT TRACKING on BCAST PREFIX user:a}
    close_client $t
}

test "OPTIN tracks only after CLIENT CACHING yes" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on OPTIN
    r $t GET notcached
    r $t CLIENT CACHING yes
    r $t GET cached
    r $writer SET notcached 1
    r $writer SET cached 1
    assert_equal {invalidate cached} [read_push $t]
    close_client $t
}

test "tracking errors and TRACKINGINFO off" {
    assert_error "ERR PREFIX option requires BCAST mode to be enabled" {r $c CLIENT TRACKING on PREFIX a}
    assert_error "ERR You can't specify both OPTIN mode and OPTOUT mode" {r $c CLIENT TRACKING on OPTIN OPTOUT}
    assert_error "ERR OPTIN and OPTOUT are not compatible with BCAST" {r $c CLIENT TRACKING on BCAST OPTIN}
    assert_error "ERR CLIENT CACHING can be called only*" {r $c CLIENT CACHING yes}
    assert_equal -1 [r $c CLIENT GETREDIR]
    assert_equal {flags off redirect -1 prefixes {}} [r $c CLIENT TRACKINGINFO]
}

test "CLIENT PAUSE WRITE holds writes but serves reads, then runs them" {
    r $c SET pw 1
    r $c CLIENT PAUSE 100000 WRITE
    set w [client $srv]
    send_cmd $w INCR pw
    after 100
    assert_equal 1 [r $c GET pw]
    r $c CLIENT UNPAUSE
    assert_equal 2 [read_reply $w]
    assert_equal 2 [r $c GET pw]
    close_client $w
}

test "CLIENT PAUSE ALL holds every command until the timeout" {
    set w [client $srv]
    r $c CLIENT PAUSE 300 ALL
    set start [clock milliseconds]
    assert_equal PONG [r $w PING]
    assert {[clock milliseconds] - $start >= 250}
    close_client $w
}

test "keys do not expire during a pause" {
    r $c SELECT 5
    r $c FLUSHDB
    r $c SET pe v PX 50
    r $c CLIENT PAUSE 100000 WRITE
    after 150
    # Logically expired for readers, but still counted until the pause ends.
    assert_equal {} [r $c GET pe]
    assert_equal 1 [r $c DBSIZE]
    r $c CLIENT UNPAUSE
    wait_for {[r $c DBSIZE] == 0}
    r $c SELECT 0
}

finish
