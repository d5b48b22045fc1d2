# lazyfree.tcl -- freeing values and keyspaces in the background thread:
# UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-* settings, told
# apart by INFO's lazyfreed_objects (only the background thread counts
# there), with memory given back and the keyspace usable at once.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server -args {--enable-debug-command yes}]
set c [client $srv]

proc freed {} { return [info_field $::c lazyfreed_objects memory] }
proc used_memory {} { return [info_field $::c used_memory memory] }
proc wait_lazyfree_done {} {
    wait_for {[info_field $::c lazyfree_pending_objects memory] == 0} 10000 "lazy frees still pending"
}
# An empty keyspace and lazyfreed_objects at 0, with nothing left pending
# from an earlier test to bump it.
proc fresh {} {
    r $::c FLUSHALL
    wait_lazyfree_done
    r $::c CONFIG RESETSTAT
}

# A value of each type over the 64-free threshold, in its big encoding.
proc make_big {key type} {
    switch $type {
        list {
            # one element per node: 200 nodes
            r $::c CONFIG SET list-max-listpack-size 1
            for {set i 0} {$i < 200} {incr i} { lappend els e$i }
            r $::c RPUSH $key {*}$els
            r $::c CONFIG SET list-max-listpack-size -2
        }
        set { for {set i 0} {$i < 1000} {incr i} { lappend els m$i }; r $::c SADD $key {*}$els }
        hash { for {set i 0} {$i < 1000} {incr i} { lappend els f$i v$i }; r $::c HSET $key {*}$els }
        zset { for {set i 0} {$i < 1000} {incr i} { lappend els $i m$i }; r $::c ZADD $key {*}$els }
    }
}

test "UNLINK hands a big value of every type to the background thread" {
    fresh
    foreach {key type enc} {bl list quicklist bs set hashtable bh hash hashtable bz zset skiplist} {
        make_big $key $type
        assert_equal $enc [r $c OBJECT ENCODING $key]
    }
    assert_equal 4 [r $c UNLINK bl bs bh bz nosuch]
    assert_equal 0 [r $c DBSIZE]
    wait_lazyfree_done
    assert_equal 4 [freed]
}

test "small values and strings are freed inline" {
    fresh
    r $c SADD s a b c
    r $c RPUSH l a b c
    r $c SET str [string repeat x 100000]
    # a listpack hash is one allocation, whatever it holds
    r $c HSET h f1 v1 f2 v2
    assert_equal 4 [r $c UNLINK s l str h]
    assert_equal 0 [r $c DBSIZE]
    assert_equal 0 [freed]
}

test "UNLINK gives the memory back" {
    r $c FLUSHALL
    wait_lazyfree_done
    set before [used_memory]
    for {set i 0} {$i < 100000} {incr i} { lappend els $i:[string repeat x 20] }
    r $c SADD big {*}$els
    set peak [used_memory]
    assert {$peak > $before + 3000000}
    assert_equal 1 [r $c UNLINK big]
    wait_for {[used_memory] < $before + 500000} 10000 "memory not reclaimed"
}

test "FLUSHALL ASYNC and FLUSHDB ASYNC empty at once and free in the background" {
    fresh
    r $c DEBUG POPULATE 1000 a
    r $c SELECT 1
    r $c DEBUG POPULATE 500 b
    r $c SET volatile v EX 100
    assert_equal OK [r $c FLUSHDB ASYNC]
    assert_equal 0 [r $c DBSIZE]
    assert_equal -2 [r $c TTL volatile]
    # the emptied database takes writes straight away
    r $c SET after v EX 100
    assert_equal v [r $c GET after]
    assert_range [r $c TTL after] 1 100
    r $c SELECT 0
    assert_equal 1000 [r $c DBSIZE]
    assert_equal OK [r $c FLUSHALL ASYNC]
    assert_equal 0 [r $c DBSIZE]
    r $c SELECT 1
    assert_equal 0 [r $c DBSIZE]
    r $c SELECT 0
    wait_lazyfree_done
    # every key counts as one object, as in Redis
    assert_equal 1502 [freed]
}

test "FLUSHALL SYNC and a plain FLUSHALL free inline" {
    fresh
    r $c DEBUG POPULATE 100
    assert_equal OK [r $c FLUSHALL SYNC]
    r $c DEBUG POPULATE 100
    assert_equal OK [r $c FLUSHALL]
    assert_equal 0 [freed]
}

test "FLUSHALL ASYNC inside MULTI frees inline, after SETs of the same transaction" {
    fresh
    r $c DEBUG POPULATE 100
    r $c MULTI
    r $c SET a [string repeat v 100]
    r $c SET b 12345678901
    r $c FLUSHALL ASYNC
    r $c SET c v
    assert_equal {OK OK OK OK} [r $c EXEC]
    assert_equal 1 [r $c DBSIZE]
    assert_equal 0 [freed]
}

test "lazyfree-lazy-user-del makes DEL free in the background" {
    fresh
    make_big s set
    assert_equal 1 [r $c DEL s]
    assert_equal 0 [freed]
    r $c CONFIG SET lazyfree-lazy-user-del yes
    make_big s set
    assert_equal 1 [r $c DEL s]
    wait_lazyfree_done
    assert_equal 1 [freed]
    r $c CONFIG SET lazyfree-lazy-user-del no
}

test "lazyfree-lazy-user-flush makes FLUSHALL and FLUSHDB asynchronous" {
    fresh
    r $c CONFIG SET lazyfree-lazy-user-flush yes
    r $c DEBUG POPULATE 10
    r $c FLUSHDB
    r $c DEBUG POPULATE 20
    r $c FLUSHALL
    # SYNC still overrides the setting
    r $c DEBUG POPULATE 30
    r $c FLUSHALL SYNC
    wait_lazyfree_done
    assert_equal 30 [freed]
    r $c CONFIG SET lazyfree-lazy-user-flush no
}

test "lazyfree-lazy-server-del: overwriting and implicit deletes free in the background" {
    fresh
    r $c CONFIG SET lazyfree-lazy-server-del yes
    make_big k zset
    r $c SET k v
    assert_equal string [r $c TYPE k]
    make_big src hash
    make_big dst list
    r $c RENAME src dst
    assert_equal hash [r $c TYPE dst]
    wait_lazyfree_done
    assert_equal 2 [freed]
    r $c CONFIG SET lazyfree-lazy-server-del no
    make_big k2 zset
    r $c SET k2 v
    assert_equal 2 [freed]
}

test "lazyfree-lazy-expire: expired big keys free in the background" {
    fresh
    r $c CONFIG SET lazyfree-lazy-expire yes
    make_big e1 set
    make_big e2 set
    r $c PEXPIRE e1 1
    # an expire time in the past deletes at once
    assert_equal 1 [r $c EXPIREAT e2 1]
    wait_for {[r $c DBSIZE] == 0} 5000 "e1 not expired"
    wait_lazyfree_done
    assert_equal 2 [freed]
    r $c CONFIG SET lazyfree-lazy-expire no
}

test "CONFIG RESETSTAT clears lazyfreed_objects" {
    make_big x set
    r $c UNLINK x
    wait_lazyfree_done
    assert {[freed] > 0}
    r $c CONFIG RESETSTAT
    assert_equal 0 [freed]
}

test "writes keep going while big values are freed" {
    fresh
    for {set i 0} {$i < 20} {incr i} {
        make_big z$i zset
        make_big s$i set
        r $c UNLINK z$i s$i
        r $c ZADD z$i 1 a
        r $c SADD s$i a
        r $c FLUSHDB ASYNC
        r $c SET k$i v
    }
    assert_equal 1 [r $c DBSIZE]
    wait_lazyfree_done
    # 40 unlinked values; the flushes: z0 s0, then z$i s$i k$i-1 each time
    assert_equal [expr {40 + 2 + 19 * 3}] [freed]
    assert_equal PONG [r $c PING]
}

finish
