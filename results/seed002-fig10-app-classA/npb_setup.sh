# Sourced by make_class_a.sh and traces/simgrid/npb3.3-64/make_ft64.sh, with W (the work folder) and
# H (this folder) set: copies the 64-host platform into W, clones NPB 3.3-MPI at the traced commit
# into W/src/npb with the class S traces' make.def (make.def.smpi, the only change to the sources),
# and sets N to its NPB3.3-MPI folder.
NPB_REPO=https://github.com/mbdevpl/nas-parallel-benchmarks
NPB_COMMIT=6f8ec75d6951629d2eb7e3001433295d407230aa
mkdir -p "$W/src"
cp "$H/setup/cluster64.xml" "$H/setup/hosts64" "$W/"
[ -d "$W/src/npb" ] || git clone -q "$NPB_REPO" "$W/src/npb"
git -C "$W/src/npb" checkout -q "$NPB_COMMIT"
N=$W/src/npb/NPB3.3-MPI
cp "$H/setup/make.def.smpi" "$N/config/make.def"
mkdir -p "$N/bin"
