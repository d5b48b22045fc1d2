# keyspace.tcl -- generic key commands: DEL UNLINK EXISTS TYPE, the EXPIRE
# family and TTLs, lazy and active expiry, KEYS, SCAN, RANDOMKEY, RENAME,
# COPY, MOVE, TOUCH, DBSIZE, FLUSHDB/FLUSHALL, SELECT, SWAPDB, OBJECT.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

# ---------------------------------------------------------------------------
# DEL UNLINK EXISTS TYPE
# ---------------------------------------------------------------------------

test "DEL counts the keys removed" {
    r $c MSET k:a 1 k:b 2 k:c 3
    assert_equal 2 [r $c DEL k:a k:b k:nokey]
    assert_equal 0 [r $c DEL k:a]
    assert_equal 1 [r $c DEL k:c k:c]
    assert_equal 0 [r $c EXISTS k:a k:b k:c]
}

test "UNLINK counts the keys removed" {
    r $c MSET k:a 1 k:b 2
    assert_equal 2 [r $c UNLINK k:a k:b k:nokey]
    assert_equal 0 [r $c EXISTS k:a]
    assert_equal 0 [r $c UNLINK k:a]
}

test "EXISTS counts duplicates" {
    r $c MSET k:a 1 k:b 2
    assert_equal 1 [r $c EXISTS k:a]
    assert_equal 3 [r $c EXISTS k:a k:a k:b k:nokey]
    assert_equal 0 [r $c EXISTS k:nokey]
}

test "DEL EXISTS UNLINK arity" {
    assert_error "ERR wrong number of arguments for 'del' command" {r $c DEL}
    assert_error "ERR wrong number of arguments for 'exists' command" {r $c EXISTS}
    assert_error "ERR wrong number of arguments for 'unlink' command" {r $c UNLINK}
}

test "TYPE" {
    r $c SET k:str v
    assert_equal "+string\r\n" [rraw $c TYPE k:str]
    assert_equal "+none\r\n" [rraw $c TYPE k:nokey]
}

test "TYPE of a list" -tags {needs-lists} {
    r $c DEL k:list
    r $c RPUSH k:list a
    assert_equal list [r $c TYPE k:list]
}

# ---------------------------------------------------------------------------
# EXPIRE family, TTL, PERSIST
# ---------------------------------------------------------------------------

test "TTL and PTTL of missing and persistent keys" {
    r $c SET k:p v
    assert_equal -1 [r $c TTL k:p]
    assert_equal -1 [r $c PTTL k:p]
    assert_equal -2 [r $c TTL k:nokey]
    assert_equal -2 [r $c PTTL k:nokey]
}

test "EXPIRE and TTL" {
    r $c SET k:e v
    assert_equal 1 [r $c EXPIRE k:e 100]
    assert_range [r $c TTL k:e] 90 100
    assert_range [r $c PTTL k:e] 90000 100000
    assert_equal 0 [r $c EXPIRE k:nokey 100]
}

test "PEXPIRE" {
    r $c SET k:e v
    assert_equal 1 [r $c PEXPIRE k:e 100000]
    assert_range [r $c PTTL k:e] 90000 100000
    assert_range [r $c TTL k:e] 90 100
}

test "EXPIREAT and PEXPIREAT" {
    r $c SET k:e v
    set at [expr {[clock seconds] + 100}]
    assert_equal 1 [r $c EXPIREAT k:e $at]
    assert_range [r $c TTL k:e] 90 101
    assert_equal $at [r $c EXPIRETIME k:e]
    assert_equal [expr {$at * 1000}] [r $c PEXPIRETIME k:e]
    set atms [expr {[clock milliseconds] + 200123}]
    assert_equal 1 [r $c PEXPIREAT k:e $atms]
    assert_equal $atms [r $c PEXPIRETIME k:e]
    assert_equal 0 [r $c EXPIREAT k:nokey $at]
}

test "EXPIRETIME rounds milliseconds to the nearest second" {
    r $c SET k:e v
    r $c PEXPIREAT k:e 4102444800499
    assert_equal 4102444800 [r $c EXPIRETIME k:e]
    r $c PEXPIREAT k:e 4102444800500
    assert_equal 4102444801 [r $c EXPIRETIME k:e]
    assert_equal 4102444800500 [r $c PEXPIRETIME k:e]
}

test "EXPIRETIME and PEXPIRETIME of missing and persistent keys" {
    r $c SET k:p v
    assert_equal -1 [r $c EXPIRETIME k:p]
    assert_equal -1 [r $c PEXPIRETIME k:p]
    assert_equal -2 [r $c EXPIRETIME k:nokey]
    assert_equal -2 [r $c PEXPIRETIME k:nokey]
}

test "EXPIRE with zero or negative time deletes the key" {
    foreach cmd {{EXPIRE k:d 0} {EXPIRE k:d -5} {PEXPIRE k:d -1} {EXPIREAT k:d 1} {PEXPIREAT k:d 1000}} {
        r $c SET k:d v
        assert_equal 1 [r $c {*}$cmd] $cmd
        assert_equal 0 [r $c EXISTS k:d] $cmd
    }
}

test "EXPIRE NX" {
    r $c SET k:e v
    assert_equal 1 [r $c EXPIRE k:e 100 NX]
    assert_equal 0 [r $c EXPIRE k:e 200 NX]
    assert_range [r $c TTL k:e] 90 100
}

test "EXPIRE XX" {
    r $c SET k:e v
    assert_equal 0 [r $c EXPIRE k:e 100 XX]
    assert_equal -1 [r $c TTL k:e]
    r $c EXPIRE k:e 100
    assert_equal 1 [r $c EXPIRE k:e 200 XX]
    assert_range [r $c TTL k:e] 190 200
}

test "EXPIRE GT" {
    r $c SET k:e v
    # A persistent key has an infinite TTL: GT never succeeds.
    assert_equal 0 [r $c EXPIRE k:e 100 GT]
    assert_equal -1 [r $c TTL k:e]
    r $c EXPIRE k:e 100
    assert_equal 0 [r $c EXPIRE k:e 50 GT]
    assert_equal 1 [r $c EXPIRE k:e 200 GT]
    assert_range [r $c TTL k:e] 190 200
}

test "EXPIRE LT" {
    r $c SET k:e v
    # A persistent key has an infinite TTL: LT always succeeds.
    assert_equal 1 [r $c EXPIRE k:e 100 LT]
    assert_range [r $c TTL k:e] 90 100
    assert_equal 0 [r $c EXPIRE k:e 300 LT]
    assert_equal 1 [r $c EXPIRE k:e 50 LT]
    assert_range [r $c TTL k:e] 40 50
}

test "EXPIRE options combined with XX" {
    r $c SET k:e v
    assert_equal 0 [r $c EXPIRE k:e 100 XX LT]
    r $c EXPIRE k:e 100
    assert_equal 1 [r $c EXPIRE k:e 50 XX LT]
    assert_equal 0 [r $c EXPIRE k:e 60 XX LT]
    assert_equal 1 [r $c PEXPIRE k:e 80000 gt xx]
}

test "EXPIRE incompatible options" {
    r $c SET k:e v
    foreach opts {{NX XX} {NX GT} {NX LT} {XX NX}} {
        assert_error "ERR NX and XX, GT or LT options at the same time are not compatible" \
            {r $c EXPIRE k:e 100 {*}$opts}
    }
    assert_error "ERR GT and LT options at the same time are not compatible" {r $c EXPIRE k:e 100 GT LT}
    assert_error "ERR GT and LT options at the same time are not compatible" {r $c PEXPIRE k:e 100 LT GT}
    assert_error "ERR Unsupported option foo" {r $c EXPIRE k:e 100 foo}
    assert_error "ERR Unsupported option 20" {r $c EXPIREAT k:e 100 20}
    assert_equal -1 [r $c TTL k:e]
}

test "EXPIRE invalid times" {
    r $c SET k:e v
    assert_error "ERR value is not an integer or out of range" {r $c EXPIRE k:e abc}
    assert_error "ERR value is not an integer or out of range" {r $c PEXPIRE k:e 1.5}
    assert_error "ERR invalid expire time in 'expire' command" {r $c EXPIRE k:e 9223372036854775807}
    assert_error "ERR invalid expire time in 'expire' command" {r $c EXPIRE k:e 9223372036854775}
    assert_error "ERR invalid expire time in 'expire' command" {r $c EXPIRE k:e -9223372036854775808}
    assert_error "ERR invalid expire time in 'pexpire' command" {r $c PEXPIRE k:e 9223372036854775807}
    assert_error "ERR invalid expire time in 'expireat' command" {r $c EXPIREAT k:e 9223372036854775807}
    assert_error "ERR wrong number of arguments for 'expire' command" {r $c EXPIRE k:e}
    assert_equal -1 [r $c TTL k:e]
}

test "PERSIST" {
    r $c SET k:e v EX 100
    assert_equal 1 [r $c PERSIST k:e]
    assert_equal -1 [r $c TTL k:e]
    assert_equal 0 [r $c PERSIST k:e]
    assert_equal 0 [r $c PERSIST k:nokey]
    assert_error "ERR wrong number of arguments for 'persist' command" {r $c PERSIST a b}
}

test "Lazy expiry: a key is gone once its TTL passed" {
    # The TTL leaves room for a stalled machine between SET and GET.
    r $c SET k:lazy v PX 500
    assert_equal v [r $c GET k:lazy]
    after 550
    assert_equal "\$-1\r\n" [rraw $c GET k:lazy]
    assert_equal 0 [r $c EXISTS k:lazy]
    assert_equal -2 [r $c TTL k:lazy]
}

test "Lazy expiry: an expired key can be set again" {
    r $c SET k:lazy2 old PX 50
    after 100
    assert_equal 1 [r $c SETNX k:lazy2 new]
    assert_equal new [r $c GET k:lazy2]
    assert_equal -1 [r $c TTL k:lazy2]
}

test "Active expiry removes keys that are never touched" {
    r $c SELECT 9
    r $c FLUSHDB
    # Held off while the keys are created, so a slow machine cannot lose
    # some before they are counted.
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    for {set i 0} {$i < 100} {incr i} {
        r $c SET k:active:$i v PX 100
    }
    r $c SET k:keeper v
    assert_equal 101 [r $c DBSIZE]
    r $c DEBUG SET-ACTIVE-EXPIRE 1
    wait_for {[r $c DBSIZE] == 1} 10000 "expired keys still counted"
    assert_equal v [r $c GET k:keeper]
    r $c FLUSHDB
    r $c SELECT 0
}

# ---------------------------------------------------------------------------
# KEYS
# ---------------------------------------------------------------------------

test "KEYS with patterns" {
    r $c SELECT 1
    r $c FLUSHDB
    r $c MSET foo 1 fob 2 bar 3 f*o 4 hello 5 hallo 6 hxllo 7 heeeello 8 hllo 9
    assert_equal {bar f*o fob foo hallo heeeello hello hllo hxllo} [lsort [r $c KEYS *]]
    assert_equal {hallo hello hxllo} [lsort [r $c KEYS h?llo]]
    assert_equal {hallo heeeello hello hllo hxllo} [lsort [r $c KEYS h*llo]]
    assert_equal {hallo hello} [lsort [r $c KEYS {h[ae]llo}]]
    assert_equal {hallo hxllo} [lsort [r $c KEYS {h[^e]llo}]]
    assert_equal {hallo} [lsort [r $c KEYS {h[a-b]llo}]]
    assert_equal {f*o} [r $c KEYS {f\*o}]
    assert_equal {f*o fob foo} [lsort [r $c KEYS f*]]
    assert_equal {} [r $c KEYS nomatch]
    assert_equal "*0\r\n" [rraw $c KEYS nomatch]
    assert_equal {foo} [r $c KEYS foo]
    r $c FLUSHDB
    r $c SELECT 0
}

test "KEYS does not return expired keys" {
    r $c SELECT 2
    r $c FLUSHDB
    r $c SET a 1
    r $c SET b 2 PX 30
    after 80
    assert_equal {a} [r $c KEYS *]
    r $c FLUSHDB
    r $c SELECT 0
}

test "KEYS arity" {
    assert_error "ERR wrong number of arguments for 'keys' command" {r $c KEYS}
    assert_error "ERR wrong number of arguments for 'keys' command" {r $c KEYS a b}
}

# ---------------------------------------------------------------------------
# SCAN
# ---------------------------------------------------------------------------

# Full SCAN iteration with extra arguments; returns the list of keys seen
# (with repetitions) and checks the cursor protocol.
proc scan_all {c args} {
    set cursor 0
    set keys {}
    set rounds 0
    while {1} {
        set reply [r $c SCAN $cursor {*}$args]
        assert_equal 2 [llength $reply] "SCAN reply shape"
        lassign $reply cursor batch
        lappend keys {*}$batch
        if {$cursor eq "0"} break
        if {[incr rounds] > 100000} { error "SCAN does not terminate" }
    }
    return $keys
}

test "SCAN full iteration returns every key" {
    r $c SELECT 3
    r $c FLUSHDB
    set expected {}
    for {set i 0} {$i < 1000} {incr i} {
        r $c SET key:$i $i
        lappend expected key:$i
    }
    foreach count {{} {COUNT 1} {COUNT 10} {COUNT 100} {COUNT 5000}} {
        set got [scan_all $c {*}$count]
        assert_equal [lsort $expected] [lsort -unique $got] "SCAN $count"
    }
    r $c SELECT 0
}

test "SCAN reply shape" {
    r $c SELECT 3
    set raw [rraw $c SCAN 0 COUNT 5]
    assert_match "*2\r\n\$*\r\n*\r\n\**\r\n*" $raw
    lassign [r $c SCAN 0 COUNT 5] cursor batch
    assert {[string is digit -strict $cursor]}
    r $c SELECT 0
}

test "SCAN MATCH" {
    r $c SELECT 3
    set got [lsort -unique [scan_all $c MATCH key:1?? COUNT 50]]
    assert_equal 100 [llength $got]
    foreach k $got { assert_match key:1?? $k }
    assert_equal {} [scan_all $c MATCH nomatch*]
    r $c SELECT 0
}

test "SCAN TYPE" {
    r $c SELECT 3
    assert_equal 1000 [llength [lsort -unique [scan_all $c TYPE string COUNT 100]]]
    assert_equal {} [scan_all $c TYPE list COUNT 100]
    r $c SELECT 0
}

test "SCAN TYPE with a list key" -tags {needs-lists} {
    r $c SELECT 3
    r $c RPUSH some:list a
    assert_equal {some:list} [scan_all $c TYPE list COUNT 100]
    r $c DEL some:list
    r $c SELECT 0
}

test "SCAN guarantees keys present during the whole iteration" {
    r $c SELECT 4
    r $c FLUSHDB
    for {set i 0} {$i < 500} {incr i} { r $c SET stable:$i v }
    set cursor 0
    set seen {}
    set n 0
    while {1} {
        lassign [r $c SCAN $cursor COUNT 20] cursor batch
        lappend seen {*}$batch
        # Churn: add and delete other keys while scanning.
        for {set j 0} {$j < 20} {incr j} {
            r $c SET churn:[incr n] v
            r $c DEL churn:[expr {$n - 10}]
        }
        if {$cursor eq "0"} break
    }
    set seen [lsort -unique $seen]
    for {set i 0} {$i < 500} {incr i} {
        assert {[lsearch -exact -sorted $seen stable:$i] >= 0} "stable:$i missed"
    }
    r $c FLUSHDB
    r $c SELECT 0
}

test "SCAN on an empty database" {
    r $c SELECT 5
    r $c FLUSHDB
    assert_equal {0 {}} [r $c SCAN 0]
    r $c SELECT 0
}

test "SCAN errors" {
    assert_error "ERR invalid cursor" {r $c SCAN abc}
    assert_error "ERR invalid cursor" {r $c SCAN 18446744073709551616}
    assert_error "ERR invalid cursor" {r $c SCAN 1.5}
    assert_error "ERR syntax error" {r $c SCAN 0 COUNT 0}
    assert_error "ERR syntax error" {r $c SCAN 0 COUNT -1}
    assert_error "ERR value is not an integer or out of range" {r $c SCAN 0 COUNT abc}
    assert_error "ERR syntax error" {r $c SCAN 0 MATCH}
    assert_error "ERR syntax error" {r $c SCAN 0 foo bar}
    assert_error "ERR wrong number of arguments for 'scan' command" {r $c SCAN}
}

# ---------------------------------------------------------------------------
# RANDOMKEY DBSIZE TOUCH
# ---------------------------------------------------------------------------

test "RANDOMKEY" {
    r $c SELECT 6
    r $c FLUSHDB
    assert_equal "\$-1\r\n" [rraw $c RANDOMKEY]
    r $c MSET a 1 b 2 c 3
    for {set i 0} {$i < 20} {incr i} {
        assert {[r $c RANDOMKEY] in {a b c}}
    }
    r $c FLUSHDB
    r $c SET only v
    assert_equal only [r $c RANDOMKEY]
    assert_error "ERR wrong number of arguments for 'randomkey' command" {r $c RANDOMKEY x}
    r $c FLUSHDB
    r $c SELECT 0
}

test "DBSIZE" {
    r $c SELECT 6
    r $c FLUSHDB
    assert_equal 0 [r $c DBSIZE]
    r $c MSET a 1 b 2
    assert_equal ":2\r\n" [rraw $c DBSIZE]
    r $c DEL a
    assert_equal 1 [r $c DBSIZE]
    assert_error "ERR wrong number of arguments for 'dbsize' command" {r $c DBSIZE x}
    r $c FLUSHDB
    r $c SELECT 0
}

test "TOUCH counts existing keys including duplicates" {
    r $c MSET k:t1 1 k:t2 2
    assert_equal 3 [r $c TOUCH k:t1 k:t2 k:nokey k:t1]
    assert_equal 0 [r $c TOUCH k:nokey]
    assert_error "ERR wrong number of arguments for 'touch' command" {r $c TOUCH}
}

# ---------------------------------------------------------------------------
# RENAME RENAMENX
# ---------------------------------------------------------------------------

test "RENAME" {
    r $c DEL k:dst
    r $c SET k:src v
    assert_equal OK [r $c RENAME k:src k:dst]
    assert_equal 0 [r $c EXISTS k:src]
    assert_equal v [r $c GET k:dst]
}

test "RENAME overwrites the destination and its TTL" {
    r $c SET k:src a
    r $c SET k:dst b EX 100
    r $c RENAME k:src k:dst
    assert_equal a [r $c GET k:dst]
    assert_equal -1 [r $c TTL k:dst]
}

test "RENAME carries the TTL" {
    r $c SET k:src v EX 100
    r $c RENAME k:src k:dst
    assert_range [r $c TTL k:dst] 90 100
}

test "RENAME a missing key" {
    r $c DEL k:src
    assert_error "ERR no such key" {r $c RENAME k:src k:dst}
    assert_error "ERR no such key" {r $c RENAME k:src k:src}
    assert_error "ERR no such key" {r $c RENAMENX k:src k:dst}
}

test "RENAME to the same key" {
    r $c SET k:same v EX 100
    assert_equal OK [r $c RENAME k:same k:same]
    assert_equal v [r $c GET k:same]
    assert_range [r $c TTL k:same] 90 100
    assert_equal 0 [r $c RENAMENX k:same k:same]
}

test "RENAMENX" {
    r $c DEL k:dst
    r $c SET k:src a
    r $c SET k:other b
    assert_equal 0 [r $c RENAMENX k:src k:other]
    assert_equal a [r $c GET k:src]
    assert_equal b [r $c GET k:other]
    assert_equal 1 [r $c RENAMENX k:src k:dst]
    assert_equal 0 [r $c EXISTS k:src]
    assert_equal a [r $c GET k:dst]
}

# ---------------------------------------------------------------------------
# COPY MOVE
# ---------------------------------------------------------------------------

test "COPY" {
    r $c DEL k:c2
    r $c SET k:c1 v EX 100
    assert_equal 1 [r $c COPY k:c1 k:c2]
    assert_equal v [r $c GET k:c2]
    assert_equal v [r $c GET k:c1]
    assert_range [r $c TTL k:c2] 90 100
    r $c SET k:c1 changed
    assert_equal v [r $c GET k:c2]
}

test "COPY does not overwrite without REPLACE" {
    r $c SET k:c1 a
    r $c SET k:c2 b
    assert_equal 0 [r $c COPY k:c1 k:c2]
    assert_equal b [r $c GET k:c2]
    assert_equal 1 [r $c COPY k:c1 k:c2 REPLACE]
    assert_equal a [r $c GET k:c2]
}

test "COPY to another DB" {
    r $c SET k:c1 v
    r $c SELECT 7
    r $c DEL k:c1
    r $c SELECT 0
    assert_equal 1 [r $c COPY k:c1 k:c1 DB 7]
    assert_equal 0 [r $c COPY k:c1 k:c1 DB 7]
    r $c SET k:c1 new
    assert_equal 1 [r $c COPY k:c1 k:c1 DB 7 REPLACE]
    r $c SELECT 7
    assert_equal new [r $c GET k:c1]
    r $c FLUSHDB
    r $c SELECT 0
}

test "COPY of a missing key" {
    assert_equal 0 [r $c COPY k:nokey k:c9]
    assert_equal 0 [r $c EXISTS k:c9]
}

test "COPY errors" {
    r $c SET k:c1 v
    assert_error "ERR source and destination objects are the same" {r $c COPY k:c1 k:c1}
    assert_error "ERR source and destination objects are the same" {r $c COPY k:c1 k:c1 DB 0}
    assert_error "ERR DB index is out of range" {r $c COPY k:c1 k:c2 DB 16}
    assert_error "ERR value is not an integer or out of range" {r $c COPY k:c1 k:c2 DB abc}
    assert_error "ERR syntax error" {r $c COPY k:c1 k:c2 foo}
}

test "MOVE" {
    r $c SELECT 8
    r $c FLUSHDB
    r $c SELECT 0
    r $c SET k:mv v EX 100
    assert_equal 1 [r $c MOVE k:mv 8]
    assert_equal 0 [r $c EXISTS k:mv]
    assert_equal 0 [r $c MOVE k:mv 8]
    r $c SELECT 8
    assert_equal v [r $c GET k:mv]
    assert_range [r $c TTL k:mv] 90 100
    r $c SELECT 0
}

test "MOVE does not overwrite" {
    r $c SET k:mv here
    assert_equal 0 [r $c MOVE k:mv 8]
    assert_equal here [r $c GET k:mv]
    r $c SELECT 8
    assert_equal v [r $c GET k:mv]
    r $c FLUSHDB
    r $c SELECT 0
}

test "MOVE errors" {
    r $c SET k:mv v
    assert_error "ERR source and destination objects are the same" {r $c MOVE k:mv 0}
    assert_error "ERR DB index is out of range" {r $c MOVE k:mv 16}
    assert_error "ERR DB index is out of range" {r $c MOVE k:mv -1}
    assert_error "ERR value is not an integer or out of range" {r $c MOVE k:mv abc}
}

# ---------------------------------------------------------------------------
# SELECT SWAPDB FLUSHDB FLUSHALL
# ---------------------------------------------------------------------------

test "SELECT isolates databases" {
    r $c SELECT 10
    r $c SET k:db ten
    r $c SELECT 11
    assert_equal 0 [r $c EXISTS k:db]
    r $c SET k:db eleven
    r $c SELECT 10
    assert_equal ten [r $c GET k:db]
    r $c FLUSHDB
    r $c SELECT 11
    r $c FLUSHDB
    r $c SELECT 0
}

test "SELECT errors" {
    assert_error "ERR DB index is out of range" {r $c SELECT 16}
    assert_error "ERR DB index is out of range" {r $c SELECT -1}
    assert_error "ERR value is not an integer or out of range" {r $c SELECT abc}
    assert_error "ERR wrong number of arguments for 'select' command" {r $c SELECT 0 1}
    assert_equal OK [r $c SELECT 15]
    assert_equal OK [r $c SELECT 0]
}

test "SELECT is per connection" {
    set other [client $srv]
    r $c SELECT 12
    r $c SET k:conn v
    assert_equal 0 [r $other EXISTS k:conn]
    r $c FLUSHDB
    r $c SELECT 0
    close_client $other
}

test "SWAPDB" {
    r $c SELECT 13
    r $c FLUSHDB
    r $c SET k:sw thirteen
    r $c SELECT 14
    r $c FLUSHDB
    r $c MSET k:sw fourteen k:sw2 x
    assert_equal OK [r $c SWAPDB 13 14]
    # This connection still has db 14 selected, which now holds db 13's data.
    assert_equal thirteen [r $c GET k:sw]
    assert_equal 1 [r $c DBSIZE]
    r $c SELECT 13
    assert_equal fourteen [r $c GET k:sw]
    assert_equal 2 [r $c DBSIZE]
    assert_equal OK [r $c SWAPDB 13 13]
    assert_equal fourteen [r $c GET k:sw]
    r $c FLUSHDB
    r $c SELECT 14
    r $c FLUSHDB
    r $c SELECT 0
}

test "SWAPDB errors" {
    assert_error "ERR invalid first DB index" {r $c SWAPDB abc 0}
    assert_error "ERR invalid second DB index" {r $c SWAPDB 0 abc}
    assert_error "ERR DB index is out of range" {r $c SWAPDB 0 16}
    assert_error "ERR DB index is out of range" {r $c SWAPDB -1 0}
    assert_error "ERR wrong number of arguments for 'swapdb' command" {r $c SWAPDB 0}
}

test "FLUSHDB only empties the selected database" {
    r $c SELECT 1
    r $c SET k:f1 v
    r $c SELECT 2
    r $c SET k:f2 v
    assert_equal OK [r $c FLUSHDB]
    assert_equal 0 [r $c DBSIZE]
    r $c SELECT 1
    assert_equal 1 [r $c DBSIZE]
    assert_equal OK [r $c FLUSHDB SYNC]
    assert_equal 0 [r $c DBSIZE]
    r $c SET k:f1 v
    assert_equal OK [r $c FLUSHDB ASYNC]
    assert_equal 0 [r $c DBSIZE]
    r $c SELECT 0
}

test "FLUSHALL empties every database" {
    r $c SELECT 1
    r $c SET k:f1 v
    r $c SELECT 0
    r $c SET k:f0 v
    assert_equal OK [r $c FLUSHALL]
    assert_equal 0 [r $c DBSIZE]
    r $c SELECT 1
    assert_equal 0 [r $c DBSIZE]
    r $c SET k:f1 v
    assert_equal OK [r $c FLUSHALL ASYNC]
    assert_equal 0 [r $c DBSIZE]
    r $c SET k:f1 v
    assert_equal OK [r $c FLUSHALL sync]
    assert_equal 0 [r $c DBSIZE]
    r $c SELECT 0
}

test "FLUSHDB and FLUSHALL errors" {
    assert_error "ERR syntax error" {r $c FLUSHDB foo}
    assert_error "ERR syntax error" {r $c FLUSHALL foo}
    assert_error "ERR syntax error" {r $c FLUSHDB ASYNC SYNC}
}

# ---------------------------------------------------------------------------
# OBJECT
# ---------------------------------------------------------------------------

test "OBJECT REFCOUNT" {
    r $c SET k:obj hello
    assert_equal 1 [r $c OBJECT REFCOUNT k:obj]
    assert_equal "\$-1\r\n" [rraw $c OBJECT REFCOUNT k:nokey]
}

test "OBJECT IDLETIME grows and resets on access" {
    r $c SET k:idle v
    assert_range [r $c OBJECT IDLETIME k:idle] 0 1
    wait_for {[r $c OBJECT IDLETIME k:idle] >= 2} 10000
    # OBJECT itself does not touch the key; GET does.
    assert {[r $c OBJECT IDLETIME k:idle] >= 2}
    r $c GET k:idle
    assert_range [r $c OBJECT IDLETIME k:idle] 0 1
    assert_equal "\$-1\r\n" [rraw $c OBJECT IDLETIME k:nokey]
}

test "OBJECT FREQ needs an LFU policy" {
    r $c SET k:freq v
    assert_error "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust." \
        {r $c OBJECT FREQ k:freq}
}

test "OBJECT FREQ under allkeys-lfu, IDLETIME error" {
    r $c CONFIG SET maxmemory-policy allkeys-lfu
    set err [catch {
        r $c SET k:freq v
        set f [r $c OBJECT FREQ k:freq]
        assert {[string is integer -strict $f] && $f >= 0}
        assert_error "ERR An LFU maxmemory policy is selected, idle time not tracked.*" \
            {r $c OBJECT IDLETIME k:freq}
        assert_equal "\$-1\r\n" [rraw $c OBJECT FREQ k:nokey]
    } msg opts]
    r $c CONFIG SET maxmemory-policy noeviction
    if {$err} { return -options $opts $msg }
}

test "OBJECT HELP" {
    set help [r $c OBJECT HELP]
    assert_match "OBJECT <subcommand> *" [lindex $help 0]
    foreach sub {ENCODING FREQ IDLETIME REFCOUNT HELP} {
        assert {[lsearch -glob $help "$sub*"] >= 0} "$sub in OBJECT HELP"
    }
}

test "OBJECT errors" {
    assert_error "ERR unknown subcommand 'foo'. Try OBJECT HELP." {r $c OBJECT foo}
    assert_error "ERR wrong number of arguments for 'object' command" {r $c OBJECT}
    assert_error "ERR wrong number of arguments for 'object|encoding' command" {r $c OBJECT ENCODING}
    assert_error "ERR wrong number of arguments for 'object|help' command" {r $c OBJECT HELP x}
}

finish
