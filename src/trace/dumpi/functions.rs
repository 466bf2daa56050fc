//! The function table of sst-dumpi's record stream: the name of every function id and the layout of
//! its arguments, as sst-dumpi's reader (`dumpi/common/dumpiio.c`, `dumpi_read_*`) takes them off the
//! stream after the record's common prefix. DUMPI records carry no length, so a reader must know the
//! layout of every function a trace may hold; this table is that knowledge, one line per id.
//!
//! Ids are the positions in sst-dumpi's `dumpi_function` enumeration (`dumpi/common/funclabels.h`),
//! unchanged from format 0.6 to 13.0: 0 = MPI_Send up to 289 = MPIO_Testsome, then the sentinels 290
//! (all functions: the footer's total), 291 and 292 (a user function's entry and exit, written by
//! MPI_Pcontrol annotations and `-finstrument-functions` builds), 293 (end of stream).
//!
//! Layout letters, read in order (integers big-endian; a C `int` count that is zero or negative means
//! an empty array, as in sst-dumpi's readers):
//! - `i` a 32-bit C `int` (counts, ranks, tags, requests, flags); `l` a 64-bit value (file offsets);
//!   `h` a 16-bit handle (communicator, datatype, group, info, file, window, keyval, errhandler);
//!   `b` an 8-bit enumeration value (op, combiner, thread level, ...);
//! - `k` the caller's rank in the communicator and `r` the root (both `int`); a `^` in front of a
//!   letter reads it only when the two are equal (arguments significant at the root only);
//! - `I` an `int` array (32-bit count, then the values); `H` a 16-bit handle array; `B` a byte array;
//!   `J` an array of `int` arrays (ranges of MPI_Group_range_incl);
//! - `c` a string (32-bit length, bytes); `C` an array of strings; `D` an array of string arrays;
//! - `S` statuses, present only when the record's mask says statuses were written: a 32-bit count,
//!   then per status the byte count, the source, a cancelled and an error byte and (format 0.6.3 on)
//!   the tag;
//! - `X` an `int` array from format 0.6.9 on, one `int` before (MPI_Type_struct displacements);
//!   `Y` likewise from 0.6.8 (MPI_Cart_get coordinates); `A` MPI_Init's arguments (`argc`, before
//!   0.6.2 written twice, then `argc` strings);
//! - `-` no layout: sst-dumpi writes no such record and cannot read one.

/// Name (as sst-dumpi's tools print it) and argument layout of every function id below
/// [`END_OF_STREAM`].
pub(crate) const FUNCTIONS: [(&str, &str); 293] = [
    ("MPI_Send", "i h i i h"),                                  // 0
    ("MPI_Recv", "i h i i h S"),                                // 1
    ("MPI_Get_count", "S h i"),                                 // 2
    ("MPI_Bsend", "i h i i h"),                                 // 3
    ("MPI_Ssend", "i h i i h"),                                 // 4
    ("MPI_Rsend", "i h i i h"),                                 // 5
    ("MPI_Buffer_attach", "i"),                                 // 6
    ("MPI_Buffer_detach", "i"),                                 // 7
    ("MPI_Isend", "i h i i h i"),                               // 8
    ("MPI_Ibsend", "i h i i h i"),                              // 9
    ("MPI_Issend", "i h i i h i"),                              // 10
    ("MPI_Irsend", "i h i i h i"),                              // 11
    ("MPI_Irecv", "i h i i h i"),                               // 12
    ("MPI_Wait", "i S"),                                        // 13
    ("MPI_Test", "i i S"),                                      // 14
    ("MPI_Request_free", "i"),                                  // 15
    ("MPI_Waitany", "i I i S"),                                 // 16
    ("MPI_Testany", "i I i i S"),                               // 17
    ("MPI_Waitall", "i I S"),                                   // 18
    ("MPI_Testall", "i I i S"),                                 // 19
    ("MPI_Waitsome", "i I i I S"),                              // 20
    ("MPI_Testsome", "i I i I S"),                              // 21
    ("MPI_Iprobe", "i i h i S"),                                // 22
    ("MPI_Probe", "i i h S"),                                   // 23
    ("MPI_Cancel", "i"),                                        // 24
    ("MPI_Test_cancelled", "S i"),                              // 25
    ("MPI_Send_init", "i h i i h i"),                           // 26
    ("MPI_Bsend_init", "i h i i h i"),                          // 27
    ("MPI_Ssend_init", "i h i i h i"),                          // 28
    ("MPI_Rsend_init", "i h i i h i"),                          // 29
    ("MPI_Recv_init", "i h i i h i"),                           // 30
    ("MPI_Start", "i"),                                         // 31
    ("MPI_Startall", "i I"),                                    // 32
    ("MPI_Sendrecv", "i h i i i h i i h S"),                    // 33
    ("MPI_Sendrecv_replace", "i h i i i i h S"),                // 34
    ("MPI_Type_contiguous", "i h h"),                           // 35
    ("MPI_Type_vector", "i i i h h"),                           // 36
    ("MPI_Type_hvector", "i i i h h"),                          // 37
    ("MPI_Type_indexed", "i I I h h"),                          // 38
    ("MPI_Type_hindexed", "i I I h h"),                         // 39
    ("MPI_Type_struct", "i I X H h"),                           // 40
    ("MPI_Address", "i"),                                       // 41
    ("MPI_Type_extent", "h i"),                                 // 42
    ("MPI_Type_size", "h i"),                                   // 43
    ("MPI_Type_lb", "h i"),                                     // 44
    ("MPI_Type_ub", "h i"),                                     // 45
    ("MPI_Type_commit", "h"),                                   // 46
    ("MPI_Type_free", "h"),                                     // 47
    ("MPI_Get_elements", "S h i"),                              // 48
    ("MPI_Pack", "i h i i i h"),                                // 49
    ("MPI_Unpack", "i i i i h h"),                              // 50
    ("MPI_Pack_size", "i h h i"),                               // 51
    ("MPI_Barrier", "h"),                                       // 52
    ("MPI_Bcast", "i h i h"),                                   // 53
    ("MPI_Gather", "k i h r h ^i ^h"),                          // 54
    ("MPI_Gatherv", "k i i h r h ^I ^I h"),                     // 55
    ("MPI_Scatter", "k i h r h ^i ^h"),                         // 56
    ("MPI_Scatterv", "k i h i h r h ^I ^I"),                    // 57
    ("MPI_Allgather", "i h i h h"),                             // 58
    ("MPI_Allgatherv", "i i h I I h h"),                        // 59
    ("MPI_Alltoall", "i h i h h"),                              // 60
    ("MPI_Alltoallv", "i I I h I I h h"),                       // 61
    ("MPI_Reduce", "i h b i h"),                                // 62
    ("MPI_Op_create", "i b"),                                   // 63
    ("MPI_Op_free", "b"),                                       // 64
    ("MPI_Allreduce", "i h b h"),                               // 65
    ("MPI_Reduce_scatter", "i I h b h"),                        // 66
    ("MPI_Scan", "i h b h"),                                    // 67
    ("MPI_Group_size", "h i"),                                  // 68
    ("MPI_Group_rank", "h i"),                                  // 69
    ("MPI_Group_translate_ranks", "h i I h I"),                 // 70
    ("MPI_Group_compare", "h h b"),                             // 71
    ("MPI_Comm_group", "h h"),                                  // 72
    ("MPI_Group_union", "h h h"),                               // 73
    ("MPI_Group_intersection", "h h h"),                        // 74
    ("MPI_Group_difference", "h h h"),                          // 75
    ("MPI_Group_incl", "h i I h"),                              // 76
    ("MPI_Group_excl", "h i I h"),                              // 77
    ("MPI_Group_range_incl", "h i J h"),                        // 78
    ("MPI_Group_range_excl", "h i J h"),                        // 79
    ("MPI_Group_free", "h"),                                    // 80
    ("MPI_Comm_size", "h i"),                                   // 81
    ("MPI_Comm_rank", "h i"),                                   // 82
    ("MPI_Comm_compare", "h h b"),                              // 83
    ("MPI_Comm_dup", "h h"),                                    // 84
    ("MPI_Comm_create", "h h h"),                               // 85
    ("MPI_Comm_split", "h i i h"),                              // 86
    ("MPI_Comm_free", "h"),                                     // 87
    ("MPI_Comm_test_inter", "h i"),                             // 88
    ("MPI_Comm_remote_size", "h i"),                            // 89
    ("MPI_Comm_remote_group", "h h"),                           // 90
    ("MPI_Intercomm_create", "h i h i i h"),                    // 91
    ("MPI_Intercomm_merge", "h i h"),                           // 92
    ("MPI_Keyval_create", "h"),                                 // 93
    ("MPI_Keyval_free", "h"),                                   // 94
    ("MPI_Attr_put", "h i"),                                    // 95
    ("MPI_Attr_get", "h i i"),                                  // 96
    ("MPI_Attr_delete", "h i"),                                 // 97
    ("MPI_Topo_test", "h b"),                                   // 98
    ("MPI_Cart_create", "h i I I i h"),                         // 99
    ("MPI_Dims_create", "i i I I"),                             // 100
    ("MPI_Graph_create", "i h i I I i h"),                      // 101
    ("MPI_Graphdims_get", "h i i"),                             // 102
    ("MPI_Graph_get", "i i h i i I I"),                         // 103
    ("MPI_Cartdim_get", "h i"),                                 // 104
    ("MPI_Cart_get", "i h i I I Y"),                            // 105
    ("MPI_Cart_rank", "i h I i"),                               // 106
    ("MPI_Cart_coords", "i h i i I"),                           // 107
    ("MPI_Graph_neighbors_count", "h i i"),                     // 108
    ("MPI_Graph_neighbors", "i h i i I"),                       // 109
    ("MPI_Cart_shift", "h i i i i"),                            // 110
    ("MPI_Cart_sub", "i h I h"),                                // 111
    ("MPI_Cart_map", "h i I I i"),                              // 112
    ("MPI_Graph_map", "i h i I I i"),                           // 113
    ("MPI_Get_processor_name", "c i"),                          // 114
    ("MPI_Get_version", "i i"),                                 // 115
    ("MPI_Errhandler_create", "h"),                             // 116
    ("MPI_Errhandler_set", "h h"),                              // 117
    ("MPI_Errhandler_get", "h h"),                              // 118
    ("MPI_Errhandler_free", "h"),                               // 119
    ("MPI_Error_string", "i c i"),                              // 120
    ("MPI_Error_class", "i i"),                                 // 121
    ("MPI_Wtime", ""),                                          // 122
    ("MPI_Wtick", ""),                                          // 123
    ("MPI_Init", "A"),                                          // 124
    ("MPI_Finalize", ""),                                       // 125
    ("MPI_Initialized", "i"),                                   // 126
    ("MPI_Abort", "h i"),                                       // 127
    ("MPI_Pcontrol", "-"),                                      // 128
    ("MPI_Close_port", "c"),                                    // 129
    ("MPI_Comm_accept", "c h i h h"),                           // 130
    ("MPI_Comm_connect", "c h i h h"),                          // 131
    ("MPI_Comm_disconnect", "h"),                               // 132
    ("MPI_Comm_get_parent", "h"),                               // 133
    ("MPI_Comm_join", "i h"),                                   // 134
    ("MPI_Comm_spawn", "k r h h ^c ^C ^i ^h ^I"),               // 135
    ("MPI_Comm_spawn_multiple", "i k r h h ^i ^C ^D ^I ^H ^I"), // 136
    ("MPI_Lookup_name", "c h c"),                               // 137
    ("MPI_Open_port", "h c"),                                   // 138
    ("MPI_Publish_name", "c h c"),                              // 139
    ("MPI_Unpublish_name", "c h c"),                            // 140
    ("MPI_Accumulate", "i h i i i h b h"),                      // 141
    ("MPI_Get", "i h i i i h h"),                               // 142
    ("MPI_Put", "i h i i i h h"),                               // 143
    ("MPI_Win_complete", "h"),                                  // 144
    ("MPI_Win_create", "i i h h h"),                            // 145
    ("MPI_Win_fence", "b h"),                                   // 146
    ("MPI_Win_free", "h"),                                      // 147
    ("MPI_Win_get_group", "h h"),                               // 148
    ("MPI_Win_lock", "b i b h"),                                // 149
    ("MPI_Win_post", "h b h"),                                  // 150
    ("MPI_Win_start", "h b h"),                                 // 151
    ("MPI_Win_test", "h i"),                                    // 152
    ("MPI_Win_unlock", "i h"),                                  // 153
    ("MPI_Win_wait", "h"),                                      // 154
    ("MPI_Alltoallw", "i I I H I I H h"),                       // 155
    ("MPI_Exscan", "i h b h"),                                  // 156
    ("MPI_Add_error_class", "i"),                               // 157
    ("MPI_Add_error_code", "i i"),                              // 158
    ("MPI_Add_error_string", "i c"),                            // 159
    ("MPI_Comm_call_errhandler", "h i"),                        // 160
    ("MPI_Comm_create_keyval", "h"),                            // 161
    ("MPI_Comm_delete_attr", "h h"),                            // 162
    ("MPI_Comm_free_keyval", "h"),                              // 163
    ("MPI_Comm_get_attr", "h h i"),                             // 164
    ("MPI_Comm_get_name", "h c i"),                             // 165
    ("MPI_Comm_set_attr", "h h"),                               // 166
    ("MPI_Comm_set_name", "h c"),                               // 167
    ("MPI_File_call_errhandler", "h i"),                        // 168
    ("MPI_Grequest_complete", "i"),                             // 169
    ("MPI_Grequest_start", "i"),                                // 170
    ("MPI_Init_thread", "C b b"),                               // 171
    ("MPI_Is_thread_main", "i"),                                // 172
    ("MPI_Query_thread", "b"),                                  // 173
    ("MPI_Status_set_cancelled", "S i"),                        // 174
    ("MPI_Status_set_elements", "S h i"),                       // 175
    ("MPI_Type_create_keyval", "h"),                            // 176
    ("MPI_Type_delete_attr", "h h"),                            // 177
    ("MPI_Type_dup", "h h"),                                    // 178
    ("MPI_Type_free_keyval", "h"),                              // 179
    ("MPI_Type_get_attr", "h h i"),                             // 180
    ("MPI_Type_get_contents", "i i i h i i i I I H"),           // 181
    ("MPI_Type_get_envelope", "h i i i b"),                     // 182
    ("MPI_Type_get_name", "h c i"),                             // 183
    ("MPI_Type_set_attr", "h h"),                               // 184
    ("MPI_Type_set_name", "h c"),                               // 185
    ("MPI_Type_match_size", "b i h"),                           // 186
    ("MPI_Win_call_errhandler", "h i"),                         // 187
    ("MPI_Win_create_keyval", "h"),                             // 188
    ("MPI_Win_delete_attr", "h h"),                             // 189
    ("MPI_Win_free_keyval", "h"),                               // 190
    ("MPI_Win_get_attr", "h h i"),                              // 191
    ("MPI_Win_get_name", "h c i"),                              // 192
    ("MPI_Win_set_attr", "h h"),                                // 193
    ("MPI_Win_set_name", "h c"),                                // 194
    ("MPI_Alloc_mem", "i h"),                                   // 195
    ("MPI_Comm_create_errhandler", "h"),                        // 196
    ("MPI_Comm_get_errhandler", "h h"),                         // 197
    ("MPI_Comm_set_errhandler", "h h"),                         // 198
    ("MPI_File_create_errhandler", "h"),                        // 199
    ("MPI_File_get_errhandler", "h h"),                         // 200
    ("MPI_File_set_errhandler", "h h"),                         // 201
    ("MPI_Finalized", "i"),                                     // 202
    ("MPI_Free_mem", ""),                                       // 203
    ("MPI_Get_address", "i"),                                   // 204
    ("MPI_Info_create", "h"),                                   // 205
    ("MPI_Info_delete", "h c"),                                 // 206
    ("MPI_Info_dup", "h h"),                                    // 207
    ("MPI_Info_free", "h"),                                     // 208
    ("MPI_Info_get", "h c i c i"),                              // 209
    ("MPI_Info_get_nkeys", "h i"),                              // 210
    ("MPI_Info_get_nthkey", "h i c"),                           // 211
    ("MPI_Info_get_valuelen", "h c i i"),                       // 212
    ("MPI_Info_set", "h c c"),                                  // 213
    ("MPI_Pack_external", "c i h i i i"),                       // 214
    ("MPI_Pack_external_size", "c i h i"),                      // 215
    ("MPI_Request_get_status", "i i S"),                        // 216
    ("MPI_Type_create_darray", "i i i I B I I b h h"),          // 217
    ("MPI_Type_create_hindexed", "i I I h h"),                  // 218
    ("MPI_Type_create_hvector", "i i i h h"),                   // 219
    ("MPI_Type_create_indexed_block", "i i I h h"),             // 220
    ("MPI_Type_create_resized", "h i i h"),                     // 221
    ("MPI_Type_create_struct", "i I I H h"),                    // 222
    ("MPI_Type_create_subarray", "i I I I b h h"),              // 223
    ("MPI_Type_get_extent", "h i i"),                           // 224
    ("MPI_Type_get_true_extent", "h i i"),                      // 225
    ("MPI_Unpack_external", "c i i i i h"),                     // 226
    ("MPI_Win_create_errhandler", "h"),                         // 227
    ("MPI_Win_get_errhandler", "h h"),                          // 228
    ("MPI_Win_set_errhandler", "h h"),                          // 229
    ("MPI_File_open", "h c b h h"),                             // 230
    ("MPI_File_close", "h"),                                    // 231
    ("MPI_File_delete", "c h"),                                 // 232
    ("MPI_File_set_size", "h l"),                               // 233
    ("MPI_File_preallocate", "h l"),                            // 234
    ("MPI_File_get_size", "h l"),                               // 235
    ("MPI_File_get_group", "h h"),                              // 236
    ("MPI_File_get_amode", "h b"),                              // 237
    ("MPI_File_set_info", "h h"),                               // 238
    ("MPI_File_get_info", "h h"),                               // 239
    ("MPI_File_set_view", "h l h h c h"),                       // 240
    ("MPI_File_get_view", "h l h h c"),                         // 241
    ("MPI_File_read_at", "h l i h S"),                          // 242
    ("MPI_File_read_at_all", "h l i h S"),                      // 243
    ("MPI_File_write_at", "h l i h S"),                         // 244
    ("MPI_File_write_at_all", "h l i h S"),                     // 245
    ("MPI_File_iread_at", "h l i h i"),                         // 246
    ("MPI_File_iwrite_at", "h l i h i"),                        // 247
    ("MPI_File_read", "h i h S"),                               // 248
    ("MPI_File_read_all", "h i h S"),                           // 249
    ("MPI_File_write", "h i h S"),                              // 250
    ("MPI_File_write_all", "h i h S"),                          // 251
    ("MPI_File_iread", "h i h i"),                              // 252
    ("MPI_File_iwrite", "h i h i"),                             // 253
    ("MPI_File_seek", "h l b"),                                 // 254
    ("MPI_File_get_position", "h l"),                           // 255
    ("MPI_File_get_byte_offset", "h l l"),                      // 256
    ("MPI_File_read_shared", "h i h S"),                        // 257
    ("MPI_File_write_shared", "h i h S"),                       // 258
    ("MPI_File_iread_shared", "h i h i"),                       // 259
    ("MPI_File_iwrite_shared", "h i h i"),                      // 260
    ("MPI_File_read_ordered", "h i h S"),                       // 261
    ("MPI_File_write_ordered", "h i h S"),                      // 262
    ("MPI_File_seek_shared", "h l b"),                          // 263
    ("MPI_File_get_position_shared", "h l"),                    // 264
    ("MPI_File_read_at_all_begin", "h l i h"),                  // 265
    ("MPI_File_read_at_all_end", "h S"),                        // 266
    ("MPI_File_write_at_all_begin", "h l i h"),                 // 267
    ("MPI_File_write_at_all_end", "h S"),                       // 268
    ("MPI_File_read_all_begin", "h i h"),                       // 269
    ("MPI_File_read_all_end", "h S"),                           // 270
    ("MPI_File_write_all_begin", "h i h"),                      // 271
    ("MPI_File_write_all_end", "h S"),                          // 272
    ("MPI_File_read_ordered_begin", "h i h"),                   // 273
    ("MPI_File_read_ordered_end", "h S"),                       // 274
    ("MPI_File_write_ordered_begin", "h i h"),                  // 275
    ("MPI_File_write_ordered_end", "h S"),                      // 276
    ("MPI_File_get_type_extent", "h h i"),                      // 277
    ("MPI_Register_datarep", "c"),                              // 278
    ("MPI_File_set_atomicity", "h i"),                          // 279
    ("MPI_File_get_atomicity", "h i"),                          // 280
    ("MPI_File_sync", "h"),                                     // 281
    ("MPIO_Test", "i i S"),                                     // 282
    ("MPIO_Wait", "i S"),                                       // 283
    ("MPIO_Testall", "i I i S"),                                // 284
    ("MPIO_Waitall", "i I S"),                                  // 285
    ("MPIO_Testany", "i I i i S"),                              // 286
    ("MPIO_Waitany", "i I i S"),                                // 287
    ("MPIO_Waitsome", "i I i I S"),                             // 288
    ("MPIO_Testsome", "i I i I S"),                             // 289
    ("MPI_ALL_FUNCTIONS", "-"),                                 // 290
    ("Function_enter", "l"),                                    // 291
    ("Function_exit", "l"),                                     // 292
];

/// Ids the reader gives a meaning (the others are decoded for their length and ignored).
/// MPI_Send.
pub(crate) const SEND: u16 = 0;
/// MPI_Recv.
pub(crate) const RECV: u16 = 1;
/// MPI_Bsend.
pub(crate) const BSEND: u16 = 3;
/// MPI_Ssend.
pub(crate) const SSEND: u16 = 4;
/// MPI_Rsend.
pub(crate) const RSEND: u16 = 5;
/// MPI_Isend.
pub(crate) const ISEND: u16 = 8;
/// MPI_Ibsend.
pub(crate) const IBSEND: u16 = 9;
/// MPI_Issend.
pub(crate) const ISSEND: u16 = 10;
/// MPI_Irsend.
pub(crate) const IRSEND: u16 = 11;
/// MPI_Irecv.
pub(crate) const IRECV: u16 = 12;
/// MPI_Wait.
pub(crate) const WAIT: u16 = 13;
/// MPI_Test.
pub(crate) const TEST: u16 = 14;
/// MPI_Request_free.
pub(crate) const REQUEST_FREE: u16 = 15;
/// MPI_Waitany.
pub(crate) const WAITANY: u16 = 16;
/// MPI_Testany.
pub(crate) const TESTANY: u16 = 17;
/// MPI_Waitall.
pub(crate) const WAITALL: u16 = 18;
/// MPI_Testall.
pub(crate) const TESTALL: u16 = 19;
/// MPI_Waitsome.
pub(crate) const WAITSOME: u16 = 20;
/// MPI_Testsome.
pub(crate) const TESTSOME: u16 = 21;
/// MPI_Cancel.
pub(crate) const CANCEL: u16 = 24;
/// MPI_Send_init.
pub(crate) const SEND_INIT: u16 = 26;
/// MPI_Bsend_init.
pub(crate) const BSEND_INIT: u16 = 27;
/// MPI_Ssend_init.
pub(crate) const SSEND_INIT: u16 = 28;
/// MPI_Rsend_init.
pub(crate) const RSEND_INIT: u16 = 29;
/// MPI_Recv_init.
pub(crate) const RECV_INIT: u16 = 30;
/// MPI_Start.
pub(crate) const START: u16 = 31;
/// MPI_Startall.
pub(crate) const STARTALL: u16 = 32;
/// MPI_Sendrecv.
pub(crate) const SENDRECV: u16 = 33;
/// MPI_Sendrecv_replace.
pub(crate) const SENDRECV_REPLACE: u16 = 34;
/// MPI_Barrier.
pub(crate) const BARRIER: u16 = 52;
/// MPI_Bcast.
pub(crate) const BCAST: u16 = 53;
/// MPI_Gather.
pub(crate) const GATHER: u16 = 54;
/// MPI_Gatherv.
pub(crate) const GATHERV: u16 = 55;
/// MPI_Scatter.
pub(crate) const SCATTER: u16 = 56;
/// MPI_Scatterv.
pub(crate) const SCATTERV: u16 = 57;
/// MPI_Allgather.
pub(crate) const ALLGATHER: u16 = 58;
/// MPI_Allgatherv.
pub(crate) const ALLGATHERV: u16 = 59;
/// MPI_Alltoall.
pub(crate) const ALLTOALL: u16 = 60;
/// MPI_Alltoallv.
pub(crate) const ALLTOALLV: u16 = 61;
/// MPI_Reduce.
pub(crate) const REDUCE: u16 = 62;
/// MPI_Allreduce.
pub(crate) const ALLREDUCE: u16 = 65;
/// MPI_Reduce_scatter.
pub(crate) const REDUCE_SCATTER: u16 = 66;
/// MPI_Scan.
pub(crate) const SCAN: u16 = 67;
/// MPI_Comm_group.
pub(crate) const COMM_GROUP: u16 = 72;
/// MPI_Group_union.
pub(crate) const GROUP_UNION: u16 = 73;
/// MPI_Group_intersection.
pub(crate) const GROUP_INTERSECTION: u16 = 74;
/// MPI_Group_difference.
pub(crate) const GROUP_DIFFERENCE: u16 = 75;
/// MPI_Group_incl.
pub(crate) const GROUP_INCL: u16 = 76;
/// MPI_Group_excl.
pub(crate) const GROUP_EXCL: u16 = 77;
/// MPI_Group_range_incl.
pub(crate) const GROUP_RANGE_INCL: u16 = 78;
/// MPI_Group_range_excl.
pub(crate) const GROUP_RANGE_EXCL: u16 = 79;
/// MPI_Group_free.
pub(crate) const GROUP_FREE: u16 = 80;
/// MPI_Comm_size.
pub(crate) const COMM_SIZE: u16 = 81;
/// MPI_Comm_rank.
pub(crate) const COMM_RANK: u16 = 82;
/// MPI_Comm_dup.
pub(crate) const COMM_DUP: u16 = 84;
/// MPI_Comm_create.
pub(crate) const COMM_CREATE: u16 = 85;
/// MPI_Comm_split.
pub(crate) const COMM_SPLIT: u16 = 86;
/// MPI_Comm_free.
pub(crate) const COMM_FREE: u16 = 87;
/// MPI_Intercomm_create.
pub(crate) const INTERCOMM_CREATE: u16 = 91;
/// MPI_Intercomm_merge.
pub(crate) const INTERCOMM_MERGE: u16 = 92;
/// MPI_Cart_create.
pub(crate) const CART_CREATE: u16 = 99;
/// MPI_Graph_create.
pub(crate) const GRAPH_CREATE: u16 = 101;
/// MPI_Cart_sub.
pub(crate) const CART_SUB: u16 = 111;
/// MPI_Finalize.
pub(crate) const FINALIZE: u16 = 125;
/// MPI_Comm_accept.
pub(crate) const COMM_ACCEPT: u16 = 130;
/// MPI_Comm_connect.
pub(crate) const COMM_CONNECT: u16 = 131;
/// MPI_Comm_disconnect.
pub(crate) const COMM_DISCONNECT: u16 = 132;
/// MPI_Comm_get_parent.
pub(crate) const COMM_GET_PARENT: u16 = 133;
/// MPI_Comm_join.
pub(crate) const COMM_JOIN: u16 = 134;
/// MPI_Comm_spawn.
pub(crate) const COMM_SPAWN: u16 = 135;
/// MPI_Comm_spawn_multiple.
pub(crate) const COMM_SPAWN_MULTIPLE: u16 = 136;
/// MPI_Accumulate.
pub(crate) const ACCUMULATE: u16 = 141;
/// MPI_Get.
pub(crate) const GET: u16 = 142;
/// MPI_Put.
pub(crate) const PUT: u16 = 143;
/// MPI_Alltoallw.
pub(crate) const ALLTOALLW: u16 = 155;
/// MPI_Exscan.
pub(crate) const EXSCAN: u16 = 156;
/// The footer's "all functions" slot; as a record id, the end of an old stream after MPI_Finalize.
pub(crate) const ALL_FUNCTIONS: u16 = 290;
/// A user function's entry (annotation records; not an MPI call).
pub(crate) const FUNCTION_ENTER: u16 = 291;
/// A user function's exit.
pub(crate) const FUNCTION_EXIT: u16 = 292;
/// The end of the record stream (written just before the header).
pub(crate) const END_OF_STREAM: u16 = 293;

/// The function's name for messages: `MPI_Send`, or `function id 400` for an id outside the table.
pub(crate) fn name(id: u16) -> String {
    match FUNCTIONS.get(id as usize) {
        Some((name, _)) => (*name).to_string(),
        None if id == END_OF_STREAM => "end of stream".to_string(),
        None => format!("function id {id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_functions() {
        let named = [
            (SEND, "MPI_Send"),
            (IRECV, "MPI_Irecv"),
            (WAITALL, "MPI_Waitall"),
            (ALLREDUCE, "MPI_Allreduce"),
            (COMM_SPLIT, "MPI_Comm_split"),
            (CART_SUB, "MPI_Cart_sub"),
            (FINALIZE, "MPI_Finalize"),
            (ALLTOALLW, "MPI_Alltoallw"),
            (EXSCAN, "MPI_Exscan"),
            (ALL_FUNCTIONS, "MPI_ALL_FUNCTIONS"),
            (FUNCTION_ENTER, "Function_enter"),
            (FUNCTION_EXIT, "Function_exit"),
            (289, "MPIO_Testsome"),
        ];
        for (id, n) in named {
            assert_eq!(name(id), n);
        }
        assert_eq!(name(END_OF_STREAM), "end of stream");
        assert_eq!(name(1000), "function id 1000");
    }

    #[test]
    fn every_layout_uses_known_letters() {
        for (name, spec) in FUNCTIONS {
            let mut caret = false;
            for c in spec.chars().filter(|c| *c != ' ') {
                assert!("ilhbkrIHBJcCDSXYA^-".contains(c), "{name}: {c}");
                if caret {
                    assert_ne!(c, '^', "{name}");
                }
                caret = c == '^';
            }
            assert!(!caret, "{name}");
            let conditional = spec.contains('^');
            assert_eq!(
                conditional,
                spec.contains('k') && spec.contains('r'),
                "{name}"
            );
        }
    }
}
