#!/bin/bash
# The committed models/full_surface.onnx, made on one machine with a GPU and 16 cores:
# the palaces' pairs drawn in 16 processes side by side (games 3000 + 60 k, 50 a part),
# then the network trained on the GPU with 15 processes making the crops.
#
#   training/full_surface.sh [GAMES_PER_PART DATA_SECONDS TRAIN_MINUTES DEVICE PARTS OUT]
#
# defaults 50 190 5.5 cuda 16 models/full_surface.onnx. The data parts live in /tmp.
# TRAIN_FLAGS adds flags to the training step: TRAIN_FLAGS=--geometry feeds each pixel's
# ray (vision.surface.geometry_channels; every pair the data step writes carries it).
set -u
GAMES=${1:-50}; DATA_S=${2:-190}; MINUTES=${3:-5.5}; DEVICE=${4:-cuda}; PARTS=${5:-16}
MODEL=${6:-models/full_surface.onnx}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
DATA=$(mktemp -d /tmp/full_surface.XXXX)
for k in $(seq 0 $((PARTS - 1))); do
  timeout -s INT "$DATA_S" python3 -m training create_full_dataset --games "$GAMES" \
    --seed $((3000 + 60 * k)) --out "$DATA/part_$k" > "$DATA/log_$k" 2>&1 &
done
wait
# A part stopped by the timeout keeps the pairs it finished (each is written whole).
echo "$(ls "$DATA"/part_*/pair_*.npz | wc -l) pairs in $DATA"
python3 -m training train --data "$DATA"/part_* --out "$MODEL" --seed 1 --epochs 1000 \
  --minutes "$MINUTES" --height-map --workers 15 --device "$DEVICE" ${TRAIN_FLAGS:-}
