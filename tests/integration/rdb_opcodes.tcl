# rdb_opcodes.tcl -- the per-key and per-file opcodes beyond the values: IDLE
# (written and read under an LRU maxmemory policy, as Redis does, so idle
# times survive a restart and move between cairn and redis-server; FREQ,
# its LFU counterpart, is tested in lfu.tcl) and
# FUNCTION2 (a Redis 7 functions library: loaded with the data around it,
# and written back so redis-server loads it again).

source [file join [file dirname [info script]] .. helpers harness.tcl]

proc dump_path {srv} { return [file join [dict get $srv dir] dump.rdb] }

test "Under allkeys-lru, idle times survive SAVE and a restart" {
    set srv [start_server -config {maxmemory-policy allkeys-lru}]
    set c [client $srv]
    r $c SET fresh v
    r $c SET k v
    r $c RESTORE idle 0 [r $c DUMP k] IDLETIME 5000
    assert_equal OK [r $c SAVE]
    set srv [restart_server $srv]
    set c [client $srv]
    set idle [r $c OBJECT IDLETIME idle]
    assert {$idle >= 5000 && $idle < 5100} "idle after restart: $idle"
    assert {[r $c OBJECT IDLETIME fresh] < 100}
}

test "Without an LRU policy no IDLE is written, and a loaded key starts fresh; LFU writes FREQ" {
    # The same three keys saved under each policy: only the LRU file carries
    # an IDLE opcode (and a length) before each key, only the LFU file a
    # FREQ opcode (and the counter byte).
    foreach policy {noeviction allkeys-lru allkeys-lfu} {
        set srv [start_server -config [list maxmemory-policy $policy]]
        set c [client $srv]
        r $c SET k v
        r $c SET k2 v
        r $c RESTORE idle 0 [r $c DUMP k] IDLETIME 5000
        r $c SAVE
        set size($policy) [file size [dump_path $srv]]
        if {$policy eq "noeviction"} {
            set srv [restart_server $srv]
            set c [client $srv]
            assert {[r $c OBJECT IDLETIME idle] < 100}
        }
        kill_server $srv
    }
    # IDLE 0 twice (opcode + 1-byte length) and IDLE 5000 (opcode + 2 bytes).
    assert_equal [expr {$size(noeviction) + 2 + 2 + 3}] $size(allkeys-lru)
    assert_equal [expr {$size(noeviction) + 3 * 2}] $size(allkeys-lfu)
}

test "redis-server's IDLE opcodes load into cairn, and cairn's into redis-server" {
    if {$::cairn(reference) eq ""} { skip_test "no reference server" }
    set rsrv [start_server -binary $::cairn(reference) -config {maxmemory-policy allkeys-lru}]
    set rc [client $rsrv]
    r $rc SET k v
    r $rc RESTORE idle 0 [r $rc DUMP k] IDLETIME 3000
    r $rc SAVE
    set srv [start_server -config {maxmemory-policy allkeys-lru}]
    file copy -force [dump_path $rsrv] [dump_path $srv]
    set srv [restart_server $srv]
    set c [client $srv]
    set idle [r $c OBJECT IDLETIME idle]
    assert {$idle >= 3000 && $idle < 3100} "redis -> cairn idle: $idle"
    r $c RESTORE idle2 0 [r $c DUMP k] IDLETIME 4000
    r $c SAVE
    file copy -force [dump_path $srv] [dump_path $rsrv]
    set rsrv [restart_server $rsrv]
    set rc [client $rsrv]
    set idle [r $rc OBJECT IDLETIME idle2]
    assert {$idle >= 4000 && $idle < 4100} "cairn -> redis idle: $idle"
}

test "A Redis 7 dump holding a functions library loads it with its data, and back" {
    if {$::cairn(reference) eq ""} { skip_test "no reference server" }
    set rsrv [start_server -binary $::cairn(reference)]
    set rc [client $rsrv]
    r $rc FUNCTION LOAD "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return 1 end)"
    r $rc SET a 1
    r $rc RPUSH l x y z
    r $rc SAVE
    set digest [r $rc DEBUG DIGEST]
    set srv [start_server]
    file copy -force [dump_path $rsrv] [dump_path $srv]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal 1 [r $c FCALL myfunc 0]
    r $c FUNCTION LOAD "#!lua name=cairnlib\nredis.register_function('cf', function(keys, args) return 2 end)"
    r $c SAVE
    file copy -force [dump_path $srv] [dump_path $rsrv]
    set rsrv [restart_server $rsrv]
    set rc [client $rsrv]
    assert_equal $digest [r $rc DEBUG DIGEST]
    assert_equal {1 2} [list [r $rc FCALL myfunc 0] [r $rc FCALL cf 0]]
}

finish
