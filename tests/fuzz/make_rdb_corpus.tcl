# make_rdb_corpus.tcl -- writes the seed corpus of fuzz_rdb.c into
# tests/fuzz/corpus-rdb/ (committed; rerun only to refresh it):
#
#   CAIRN_SERVER=src/cairn-server tclsh tests/fuzz/make_rdb_corpus.tcl
#
# Seeds: the DUMP payload of every key of the snapshot tests' dataset (mode
# byte 1), cairn's and redis-server's snapshot of that dataset, and
# hand-built files in the legacy encodings (ziplist, zipmap, quicklist of
# ziplists, listpack sets) that no Redis 7.0 writes (mode byte 0), each
# file also as skim-* (mode byte 2: skimmed, as cairn-backup full checks).

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers rdbgen.tcl]

set out [file join [file dirname [file normalize [info script]]] corpus-rdb]
file mkdir $out

proc seed {name mode bytes} {
    set f [open [file join $::out $name] wb]
    puts -nonewline $f [binary format c $mode]$bytes
    close $f
    if {$mode == 0} { seed [regsub {^file-} $name skim-] 2 $bytes }
}

set servers [list cairn $::cairn(server)]
if {$::cairn(reference) ne ""} { lappend servers redis $::cairn(reference) }
foreach {who binary} $servers {
    set srv [start_server -binary $binary]
    set c [client $srv]
    rdbdata_populate $c
    r $c SAVE
    seed "file-$who-dataset" 0 [read_bytes [file join [dict get $srv dir] dump.rdb]]
    if {$who eq "cairn"} {
        foreach db {0 5 15} {
            r $c SELECT $db
            foreach key [r $c KEYS *] {
                regsub -all {[^A-Za-z0-9_.-]} $key _ safe
                seed "payload-db$db-$safe" 1 [r $c DUMP $key]
            }
        }
    }
    kill_server $srv
}

seed file-legacy-v9 0 [rdb_file 9 [join [list \
    [rdb_key 10 l:ziplist [rdb_str [ziplist [list x {int 0} {int 12} {int -2000} {int 100000} {int 9000000000} [string repeat y 80]]]]] \
    [rdb_key 14 l:quicklist "[rdb_len 2][rdb_str [ziplist {a b c}]][rdb_str [ziplist {{int 1} {int 2}}]]"] \
    [rdb_key 12 z:ziplist [rdb_str [ziplist {a {int 1} b 2.5 c {int 30}}]]] \
    [rdb_key 13 h:ziplist [rdb_str [ziplist {f1 v1 f2 {int 2}}]]] \
    [rdb_key 9 h:zipmap [rdb_str [zipmap {name cairn kind server}]]] \
] ""]]
seed file-legacy-v11-listpack-set 0 [rdb_file 11 [rdb_key 20 s:lp [rdb_str [listpack {a b 1 2}]]]]
seed file-empty-v10 0 [rdb_file 10 ""]
puts "wrote [llength [glob -directory $out *]] seeds to $out"
finish
